"""Child view models under bindery-dev, over pipes: exactly what the daemon itself sends (appd's
tabbed app, through `bindery-dev --product appd` on this package and straight from appd), then
across reloads of the dev-loop package's `tabbedApp` (devloop.py): ids the client holds stay
valid, children's fields kept, a row the new model does not make detached and closed, a child
type that is gone closed with session/closed.
"""
import json
import os
import subprocess

import pytest

from devloop import DEV, ROOT, TABBED, DevClient, fixture, save

# protocol.md's exchange of child view models, and more: a child's field written, a detail shown,
# a detached row named, the whole tree asked again, a child refused a close.
EXCHANGE = [
    ("session/open", {"type": "tabbedApp"}),
    ("invoke", {"session": 4, "command": "add"}),
    ("invoke", {"session": 4, "command": "add"}),
    ("invoke", {"session": 6, "command": "increment"}),
    ("setField", {"session": 3, "field": "name", "value": "Ada"}),
    ("invoke", {"session": 1, "command": "showDetail", "args": 2}),
    ("invoke", {"session": 4, "command": "moveToTop", "args": 2}),
    ("invoke", {"session": 4, "command": "remove", "args": 2}),
    ("invoke", {"session": 6, "command": "increment"}),
    ("session/state", {"session": 1}),
    ("session/state", {"session": 4}),
    ("session/close", {"session": 5}),
    ("session/close", {"session": 1}),
    ("invoke", {"session": 5, "command": "increment"}),
]


def exchange(client):
    seen = []
    for method, params in EXCHANGE:
        response, before = client.call(method, params, timeout=300)
        seen += before + [response]
    return seen


def test_children_through_bindery_dev_are_what_the_daemon_sends():
    appd = os.environ.get("APPD", str(ROOT / ".build" / "debug" / "appd"))
    direct = DevClient.attach(subprocess.Popen([appd], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE))
    try:
        expected = exchange(direct)
    finally:
        direct.close()
    assert any("children" in m.get("params", {}) for m in expected) and any("detached" in m.get("params", {}) for m in expected)
    dev = DevClient(package=ROOT, product="appd")
    try:
        assert exchange(dev) == expected
    finally:
        dev.close()


def test_the_rows_soak_holds_through_bindery_dev(tmp_path):
    # Tests/Children's seeded soak of rows (adds, removes, moves, increments on random rows, each
    # checked against the client's fold and session/state), with bindery-dev as its daemon.
    daemon = tmp_path / "appd-through-bindery-dev"
    daemon.write_text('#!/bin/sh\nexec "%s" --package-path "%s" --product appd\n' % (DEV, ROOT))
    daemon.chmod(0o755)
    done = subprocess.run(["python3", "-m", "pytest", str(ROOT / "Tests" / "Children"), "-q", "-p", "no:cacheprovider"],
                          env=dict(os.environ, APPD=str(daemon)), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def dev():
    fixture()
    client = DevClient()
    # With display text (as the editors ask): a reload's didChanges carry it like the daemon's own.
    client.result("initialize", {"capabilities": {"display": True}})
    yield client
    client.close()


def changes(messages):
    return {m["params"]["session"]: m["params"] for m in messages if m.get("method") == "didChange"}


def reload(dev, text):
    save(TABBED, text)
    message, before = dev.notification("daemon/reloaded")
    return message["params"], before


def test_a_reload_keeps_the_tree(dev):
    opened = dev.result("session/open", {"type": "tabbedApp"})
    root, state = opened["session"], opened["state"]
    profile, counters = state["profileTab"]["session"], state["countersTab"]["session"]
    [cups] = [row["session"] for row in opened["children"][str(counters)]["state"]["rows"]]
    # Every change of a child reaches the client, in the client's ids.
    response, before = dev.call("setField", {"session": profile, "field": "name", "value": "Ada"})
    assert changes(before)[profile]["changes"] == {"canSave": True}
    dev.result("setField", {"session": cups, "field": "title", "value": "Mugs"})
    response, before = dev.call("invoke", {"session": counters, "command": "add"})
    added = changes(before)[counters]
    [extra] = [int(id) for id in added["children"]]
    assert added["changes"]["rows"] == [{"session": cups}, {"session": extra}]
    _, before = dev.call("invoke", {"session": extra, "command": "increment"})
    assert changes(before)[extra]["changes"] == {"count": 1, "summary": "Counter 2: 1"}
    revision = dev.result("session/state", {"session": counters})["revision"]

    # An edit of the row's computed output: the same ids, the fields kept, the row the new model
    # does not make (it was added by a command) detached from its tab and closed.
    params, before = reload(dev, TABBED.read_text().replace('"\\(title): \\(count)"', '"\\(title) = \\(count)"'))
    told = changes(before)
    assert told[cups] == {"session": cups, "revision": 2, "changes": {"summary": "Mugs = 0"}, "display": {}}
    assert told[counters] == {"session": counters, "revision": revision + 1, "changes": {"rows": [{"session": cups}], "total": 0},
                              "display": {"total": "0"}, "detached": [extra]}
    assert profile not in told and root not in told
    closed = [m["params"] for m in before if m.get("method") == "session/closed"]
    assert [(c["session"], c["type"]) for c in closed] == [(extra, "CounterRowViewModel")]
    assert [c["session"] for c in params["closed"]] == [extra]
    assert dev.result("session/state", {"session": profile})["state"] == {"name": "Ada", "canSave": True}
    assert dev.result("session/state", {"session": cups})["state"]["title"] == "Mugs"
    response, _ = dev.call("invoke", {"session": extra, "command": "increment"})
    assert response["error"]["code"] == -32011

    # After it, children come and go as before, under ids never used before.
    response, before = dev.call("invoke", {"session": counters, "command": "add"})
    [new] = [int(id) for id in changes(before)[counters]["children"]]
    assert new > extra
    response, before = dev.call("invoke", {"session": new, "command": "increment"})
    assert changes(before)[new] == {"session": new, "revision": 1, "changes": {"count": 1, "summary": "Counter 2 = 1"},
                                    "display": {"count": "1"}, "cause": response["id"]}
    response, before = dev.call("invoke", {"session": root, "command": "showDetail", "args": 1})
    detail = changes(before)[root]["changes"]["detail"]["session"]
    assert detail not in (cups, new)
    dev.result("setField", {"session": detail, "field": "title", "value": "Cups"})

    # A child type that is gone: its sessions are closed, the others stay.
    text = TABBED.read_text()
    gone = text.replace("let profileTab = ProfileTabViewModel()\n", "").replace(
        '            Output("profileTab", \\.profileTab)\n', "")
    params, before = reload(dev, gone)
    closed = [m["params"] for m in before if m.get("method") == "session/closed"]
    assert (profile, "ProfileTabViewModel") in [(c["session"], c["type"]) for c in closed]
    assert [c["reason"] for c in closed if c["session"] == profile] == [
        'the view model type "ProfileTabViewModel" no longer exists']
    assert changes(before)[root]["detached"] == [profile, detail]  # the new model shows no detail yet
    response, _ = dev.call("setField", {"session": profile, "field": "name", "value": "Grace"})
    assert response["error"]["code"] == -32011
    assert dev.result("session/state", {"session": cups})["state"]["title"] == "Cups"
    reload(dev, text)


def test_a_daemon_that_died_comes_back_with_its_tree(dev):
    crashing = TABBED.read_text().replace(
        "    func remove(id: Int) {", '    func crash() { fatalError("crashed on purpose") }\n    func remove(id: Int) {').replace(
        '            Command("add") { $0.add() }', '            Command("add") { $0.add() }\n            Command("crash") { $0.crash() }')
    original = TABBED.read_text()
    reload(dev, crashing)
    opened = dev.result("session/open", {"type": "tabbedApp"})
    profile, counters = opened["state"]["profileTab"]["session"], opened["state"]["countersTab"]["session"]
    [cups] = [row["session"] for row in opened["children"][str(counters)]["state"]["rows"]]
    dev.result("setField", {"session": profile, "field": "name", "value": "Ada"})
    dev.result("setField", {"session": cups, "field": "title", "value": "Mugs"})
    response, _ = dev.call("invoke", {"session": counters, "command": "crash"})
    assert response["error"]["code"] == -32603
    dev.notification("daemon/exited")
    # Saved: a new daemon, the tree moved from what the client held (the old daemon is gone).
    params, before = reload(dev, original)
    assert params["closed"] == []
    assert dev.result("session/state", {"session": profile})["state"] == {"name": "Ada", "canSave": True}
    assert dev.result("session/state", {"session": cups})["state"]["title"] == "Mugs"
