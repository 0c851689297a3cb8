"""bindery-dev driven over pipes against a package it reloads as its sources are saved.

One bindery-dev serves the whole module, so the package is built once and each test is one or
two incremental builds: the tests run in this order and each starts from where the last left off
(the form holds name = "Ada").
"""
import os

import pytest

from devloop import MAIN, MODEL, DevClient, fixture, save

ORIGINAL_MODEL = None


@pytest.fixture(scope="module")
def dev():
    global ORIGINAL_MODEL
    fixture()
    ORIGINAL_MODEL = MODEL.read_text()
    client = DevClient()
    yield client
    client.close()


@pytest.fixture(scope="module")
def form(dev):
    opened = dev.result("session/open", {"type": "greeting", "key": "form-1"})
    assert opened["state"] == {"name": "", "greeting": "Hello!"}
    session = opened["session"]
    assert dev.result("setField", {"session": session, "field": "name", "value": "Ada"}) == {"revision": 1}
    return session


def reload(dev, text, path=None):
    """Saves `text` and waits for the reload; returns (daemon/reloaded params, messages before it)."""
    save(path or MODEL, text)
    message, before = dev.notification("daemon/reloaded")
    return message["params"], before


def changes(messages, session):
    return [m["params"] for m in messages if m.get("method") == "didChange" and m["params"]["session"] == session]


def test_a_new_field_appears_and_the_typed_value_stays(dev, form):
    text = ORIGINAL_MODEL.replace('    var name = ""\n', '    var name = ""\n    var title = "Dr"\n')
    text = text.replace('Field("name", \\.name)', 'Field("name", \\.name)\n            Field("title", \\.title)')
    params, before = reload(dev, text)
    assert params["types"] == ["greeting"]
    assert params["buildMs"] > 0 and params["restartMs"] >= 0 and params["migrateMs"] >= 0
    assert params["removed"] == [] and params["fellBack"] == [] and params["closed"] == []
    assert {"method": "daemon/reloading", "jsonrpc": "2.0", "params": {}} in before
    assert changes(before, form) == [{"session": form, "revision": 2, "changes": {"title": "Dr"}}]
    state = dev.result("session/state", {"session": form})
    assert state == {"revision": 2, "state": {"name": "Ada", "title": "Dr", "greeting": "Hello, Ada!"}}
    # The same key still finds the same session, and revisions go on.
    again = dev.result("session/open", {"type": "greeting", "key": "form-1"})
    assert (again["session"], again["revision"], again["reopened"]) == (form, 2, True)
    assert dev.result("setField", {"session": form, "field": "title", "value": "Prof"}) == {"revision": 2}


def test_a_changed_computed_output_is_pushed(dev, form):
    text = MODEL.read_text().replace('"Hello, \\(name)!"', '"Good morning, \\(title) \\(name)!"')
    params, before = reload(dev, text)
    assert changes(before, form) == [{"session": form, "revision": 3, "changes": {"greeting": "Good morning, Prof Ada!"}}]
    assert params["types"] == []  # the schema did not change, only what a computed output says
    assert dev.result("setField", {"session": form, "field": "name", "value": "Grace"}) == {"revision": 4}


def test_a_removed_field_is_dropped_and_named(dev, form):
    params, before = reload(dev, ORIGINAL_MODEL)
    assert params["types"] == ["greeting"]
    assert params["removed"] == [{"session": form, "field": "title"}]
    assert changes(before, form) == [{"session": form, "revision": 5, "changes": {"greeting": "Hello, Grace!"}}]
    assert dev.result("session/state", {"session": form}) == {
        "revision": 5, "state": {"name": "Grace", "greeting": "Hello, Grace!"}}


def test_a_burst_of_saves_makes_one_build(dev, form):
    import time
    for index in range(5):
        save(MODEL, ORIGINAL_MODEL.replace("Hello, ", "Hello %d, " % index), burst=index > 0)
        time.sleep(0.005)
    params, before = dev.notification("daemon/reloaded")
    assert [m["method"] for m in before if m.get("method", "").startswith("daemon/")] == ["daemon/reloading"]
    assert changes(before, form) == [{"session": form, "revision": 6, "changes": {"greeting": "Hello 4, Grace!"}}]
    # Saves while a build runs make one more build, whose result alone is loaded.
    save(MODEL, ORIGINAL_MODEL.replace("Hello, ", "Hello 5, "))
    dev.notification("daemon/reloading")
    save(MODEL, ORIGINAL_MODEL.replace("Hello, ", "Hello 6, "), burst=True)
    save(MODEL, ORIGINAL_MODEL, burst=True)
    params, before = dev.notification("daemon/reloaded")
    assert [m["method"] for m in before if m.get("method", "").startswith("daemon/")] == ["daemon/reloading"]
    assert changes(before, form) == [{"session": form, "revision": 7, "changes": {"greeting": "Hello, Grace!"}}]


def test_a_value_the_new_type_refuses_falls_back(dev, form):
    text = ORIGINAL_MODEL.replace('var name = ""', 'var name = 7').replace(
        '"Hello, \\(name)!"', '"Hello, number \\(name)!"').replace('name.isEmpty', 'name == 0')
    params, before = reload(dev, text)
    assert params["fellBack"] == [{"session": form, "field": "name"}]
    assert changes(before, form) == [{"session": form, "revision": 8, "changes": {"name": 7, "greeting": "Hello, number 7!"}}]
    params, before = reload(dev, ORIGINAL_MODEL)
    assert changes(before, form) == [{"session": form, "revision": 9, "changes": {"name": "", "greeting": "Hello!"}}]
    assert dev.result("setField", {"session": form, "field": "name", "value": "Ada"}) == {"revision": 10}


def test_a_syntax_error_is_reported_and_the_old_daemon_serves(dev, form):
    lines = ORIGINAL_MODEL.split("\n")
    broken_line = 7  # 1-based: `var greeting ...`
    lines[broken_line - 1] = "    var greeting: String { name.isEmpty ? \"Hello!\" : }"
    save(MODEL, "\n".join(lines))
    failed, _ = dev.notification("daemon/buildFailed")
    errors = [d for d in failed["params"]["diagnostics"] if d["severity"] == "error"]
    assert errors and errors[0]["file"] == str(MODEL) and errors[0]["line"] == broken_line, failed
    assert errors[0]["column"] > 0 and errors[0]["message"]
    # The old daemon goes on serving, the session as it was.
    response, before = dev.call("setField", {"session": form, "field": "name", "value": "Ada L"})
    assert response["result"] == {"revision": 11}
    assert changes(before, form) == [{"session": form, "revision": 11, "changes": {"greeting": "Hello, Ada L!"},
                                      "cause": response["id"]}]
    # Fixing it reloads.
    params, before = reload(dev, ORIGINAL_MODEL.replace("Hello, ", "Hi, "))
    assert changes(before, form) == [{"session": form, "revision": 12, "changes": {"greeting": "Hi, Ada L!"}}]


def test_a_daemon_that_crashes_at_start_is_rolled_back(dev, form):
    original_main = MAIN.read_text()
    save(MAIN, original_main.replace("var registry", 'fatalError("boom at start")\nvar registry'))
    failed, _ = dev.notification("daemon/buildFailed")
    assert failed["params"]["rolledBack"] is True
    [diagnostic] = failed["params"]["diagnostics"]
    assert "boom at start" in diagnostic["message"] and diagnostic["file"] is None, diagnostic
    # Still the previous build, with the session as it was.
    assert dev.result("session/state", {"session": form}) == {
        "revision": 12, "state": {"name": "Ada L", "greeting": "Hi, Ada L!"}}
    save(MAIN, original_main)
    dev.notification("daemon/reloaded")
    assert dev.result("setField", {"session": form, "field": "name", "value": "Ada"})["revision"] == 13


def test_a_daemon_that_dies_restoring_a_session_is_rolled_back(dev, form):
    save(MODEL, ORIGINAL_MODEL.replace('    var name = ""\n', '    var name = ""\n    init() { fatalError("boom on open") }\n'))
    failed, _ = dev.notification("daemon/buildFailed")
    assert failed["params"]["rolledBack"] is True
    message = failed["params"]["diagnostics"][0]["message"]
    assert "while its sessions were restored" in message and "boom on open" in message, message
    assert dev.result("session/state", {"session": form}) == {
        "revision": 13, "state": {"name": "Ada", "greeting": "Hi, Ada!"}}
    params, before = reload(dev, ORIGINAL_MODEL)
    assert changes(before, form) == [{"session": form, "revision": 14, "changes": {"greeting": "Hello, Ada!"}}]


def test_a_type_that_is_gone_closes_its_sessions(dev, form):
    other = dev.result("session/open", {"type": "greeting"})["session"]
    original_main = MAIN.read_text()
    params, before = reload(dev, original_main.replace('register("greeting")', 'register("welcome")'), MAIN)
    closed = [m["params"] for m in before if m.get("method") == "session/closed"]
    assert [c["session"] for c in closed] == [form, other]
    assert "no longer exists" in closed[0]["reason"]
    assert sorted(params["types"]) == ["greeting", "welcome"]
    response, _ = dev.call("session/state", {"session": form})
    assert response["error"]["code"] == -32011
    # New sessions get ids never used before.
    assert dev.result("session/open", {"type": "welcome"})["session"] == other + 1
    reload(dev, original_main, MAIN)


def test_a_command_running_at_a_reload_is_cancelled(dev):
    # The command runs until cancelled: one that ended first (a minute's sleep, under a load that
    # made the build longer) is rightly answered with its result, not -32800.
    text = ORIGINAL_MODEL.replace(
        '    var name = ""\n',
        '    var name = ""\n    func wait() async throws { while true { try await Task.sleep(for: .seconds(3600)) } }\n').replace(
        'Output("greeting", \\.greeting)', 'Output("greeting", \\.greeting)\n            Command("wait") { try await $0.wait() }')
    reload(dev, text)
    session = dev.result("session/open", {"type": "greeting"})["session"]
    invoke = dev.send("invoke", {"session": session, "command": "wait"})
    started, _ = dev.wait_for(lambda m: m.get("method") == "didChange" and m["params"]["session"] == session)
    assert started["params"]["changes"] == {"wait.running": True}
    save(MODEL, text.replace("Hello, ", "Hi, "))
    answer, before = dev.wait_for(lambda m: m.get("id") == invoke)
    assert answer["error"]["code"] == -32800 and "reloaded" in answer["error"]["message"], answer
    assert {"wait.running": False} in [c["changes"] for c in changes(before, session)]
    params, _ = dev.notification("daemon/reloaded")
    assert dev.result("session/state", {"session": session})["state"]["wait.running"] is False


def test_a_daemon_that_dies_while_serving_comes_back_with_its_forms(dev):
    text = ORIGINAL_MODEL.replace(
        '    var name = ""\n', '    var name = ""\n    func crash() { fatalError("crashed on purpose") }\n').replace(
        'Output("greeting", \\.greeting)', 'Output("greeting", \\.greeting)\n            Command("crash") { $0.crash() }')
    reload(dev, text)
    session = dev.result("session/open", {"type": "greeting", "key": "crash"})["session"]
    dev.result("setField", {"session": session, "field": "name", "value": "Ada"})
    response, _ = dev.call("invoke", {"session": session, "command": "crash"})
    assert response["error"]["code"] == -32603 and "exited" in response["error"]["message"]
    exited, _ = dev.notification("daemon/exited")
    # The crash's message and its place in the source, not its backtrace (that is in the log).
    message = exited["params"]["message"]
    line = text.split("\n").index('    func crash() { fatalError("crashed on purpose") }') + 1
    first, place = message.split("\n")
    assert first.endswith("GreetingViewModel.swift:%d: Fatal error: crashed on purpose" % line), message
    assert place.startswith("in GreetingViewModel.crash() at %s:%d:" % (MODEL, line)), message
    assert "Thread 0" in dev.stderr_text() and "Registers" not in message
    response, _ = dev.call("setField", {"session": session, "field": "name", "value": "Grace"})
    assert "save a source" in response["error"]["message"]
    # Fixed and saved: a new daemon, the session back with what the client held.
    params, before = reload(dev, ORIGINAL_MODEL)
    assert changes(before, session) == []
    assert dev.result("session/state", {"session": session}) == {
        "revision": 1, "state": {"name": "Ada", "greeting": "Hello, Ada!"}}
    assert dev.result("session/open", {"type": "greeting", "key": "crash"})["session"] == session


def test_a_save_in_the_same_tick_as_the_last_is_built(dev):
    # Two saves within one tick of the file system's clock (4 ms) get the same modification time;
    # `swift build` tells a changed source by that time alone. Made to happen every time here by
    # stamping the second save with the first one's time (the texts have the same length).
    session = dev.result("session/open", {"type": "greeting"})["session"]
    reload(dev, ORIGINAL_MODEL.replace("Hello, ", "Howdy, "))
    dev.result("setField", {"session": session, "field": "name", "value": "Ada"})
    first = os.stat(MODEL).st_mtime_ns
    save(MODEL, ORIGINAL_MODEL, mtime_ns=first)
    params, before = dev.notification("daemon/reloaded")
    assert changes(before, session) == [{"session": session, "revision": 2, "changes": {"greeting": "Hello, Ada!"}}]
    assert "saved twice within one tick" in dev.stderr_text()
