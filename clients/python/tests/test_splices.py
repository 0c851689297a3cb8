"""List splices (protocol.md, "List splices"): the client asks for them, folds them into whole lists,
and resynchronises when one does not fit.

Three levels: ``apply_splice`` alone; the shared core (hub.py + state.py, what Client and
AsyncClient both run) fed by a scripted peer, with the recorded transcripts replayed through it;
and seeded random sequences against the real daemon, with and without the capability, where
after every step each session's ``state`` must equal a fresh ``session/state``.
"""
from __future__ import annotations

import json
import os
import random
from typing import Any, Dict, List

import pytest

from bindery import MISSING, AsyncClient, Changes, Client, Session, UnknownSession
from bindery.rpc import Pending
from bindery.seeds import AddMovieSession, MovieListChanges, MovieListSession
from bindery.mirror import apply_splice
from conftest import TRANSCRIPTS
from helpers import background, run
from scripted import ScriptedHub, answer, drive


def op(at: int, delete: int, *insert: Any) -> Dict[str, Any]:
    return {"at": at, "delete": delete, "insert": list(insert)}


def splice(length: int, *ops: Dict[str, Any]) -> Dict[str, Any]:
    return {"ops": list(ops), "length": length}


# apply_splice alone.

@pytest.mark.parametrize("before,edit,after", [
    ([], splice(1, op(0, 0, "a")), ["a"]),                                        # a first element
    (["a", "b"], splice(3, op(2, 0, "c")), ["a", "b", "c"]),                      # append
    (["a", "c"], splice(3, op(1, 0, "b")), ["a", "b", "c"]),                      # insert
    (["a", "b", "c"], splice(2, op(1, 1)), ["a", "c"]),                           # delete
    (["a", "b", "c"], splice(3, op(1, 1, "B")), ["a", "B", "c"]),                 # replace
    (["a", "b", "c"], splice(0, op(0, 3)), []),                                   # delete all
    (["a", "b", "c", "d"], splice(4, op(0, 1), op(2, 1, "x", "y")), ["b", "c", "x", "y"]),  # ops in order
    ([{"id": 1}], splice(2, op(1, 0, [1, 2])), [{"id": 1}, [1, 2]]),             # elements of any JSON kind
    (["a"], splice(1), ["a"]),                                                    # no ops
])
def test_apply_splice(before: List[Any], edit: Dict[str, Any], after: List[Any]) -> None:
    kept = list(before)
    assert apply_splice(before, edit) == after
    assert before == kept, "the old list is left as it was: change sets delivered earlier keep it"


@pytest.mark.parametrize("before,edit", [
    (["a", "b"], splice(2, op(2, 0, "c"))),   # another length than the daemon's
    (["a", "b"], splice(1, op(2, 1))),        # deleting past the end
    (["a", "b"], splice(3, op(3, 0, "c"))),   # inserting past the end
    (["a"], splice(1, op(-1, 0))),            # a negative index
    (["a"], splice(1, op(0, True))),          # a boolean is no count
    (["a"], {"ops": [{"at": 0, "delete": 0}], "length": 1}),  # no insert
    (["a"], {"ops": "x", "length": 1}),
    (["a"], {"length": 1}),
    (None, splice(0)),                        # not a list
    ("ab", splice(2)),
])
def test_a_splice_that_does_not_fit_is_refused(before: Any, edit: Dict[str, Any]) -> None:
    assert apply_splice(before, edit) is None


# The shared core, fed by a scripted peer.

@pytest.fixture
def hub(daemon_path: str) -> ScriptedHub:
    return ScriptedHub(daemon_path)


def test_splices_fold_into_whole_values_and_change_sets_show_both(hub: ScriptedHub) -> None:
    session = hub.open(1, {"items": ["a", "b"], "count": 2})
    held = session.state["items"]
    hub.did_change(1, 1, {"count": 3}, {"items": splice(3, op(2, 0, "c"))}, cause=7)
    assert session.state == {"items": ["a", "b", "c"], "count": 3} and session.revision == 1
    assert held == ["a", "b"], "a list handed out earlier is not mutated"
    (_, changes), = hub.published
    assert dict(changes) == {"items": ["a", "b", "c"], "count": 3}
    assert list(changes) == ["items", "count"], "declaration order, as the state has it"
    assert changes.splices == {"items": splice(3, op(2, 0, "c"))}
    assert changes.cause == 7 and changes.revision == 1 and not changes.resync
    hub.did_change(1, 2, {"count": 1}, {"items": splice(1, op(0, 1), op(1, 1))})
    assert session.state["items"] == ["b"] and hub.published[-1][1].splices["items"]["length"] == 1
    hub.did_change(1, 3, {"items": ["z"]})  # sent whole: no splices on the change set
    assert session.state["items"] == ["z"] and hub.published[-1][1].splices == {}
    assert hub.requests("session/state") == []


def test_a_length_mismatch_resyncs_and_never_folds_into_the_wrong_list(hub: ScriptedHub) -> None:
    session = hub.open(1, {"items": ["a"], "count": 1})
    hub.did_change(1, 1, {"count": 2}, {"items": splice(3, op(1, 0, "b"))})  # the daemon's list had 2
    # protocol.md, "Client mirror" rule 4: changes fold first; the splice that does not fit stops the
    # fold there (the revision waits for session/state too).
    assert session.state == {"items": ["a"], "count": 2} and session.revision == 0
    assert dict(hub.published[-1][1]) == {"count": 2}, "what fitted is delivered; the list waits"
    resync, = hub.requests("session/state")
    assert resync["params"] == {"session": 1}
    # Until the state comes, the session's didChanges are ignored (a splice of that list too).
    hub.did_change(1, 2, {}, {"items": splice(4, op(3, 0, "d"))})
    assert session.state["items"] == ["a"] and len(hub.requests("session/state")) == 1
    answer(hub.endpoint, {"jsonrpc": "2.0", "id": resync["id"],
                          "result": {"revision": 2, "state": {"items": ["x", "y", "z", "d"], "count": 2}}})
    assert session.state == {"items": ["x", "y", "z", "d"], "count": 2} and session.revision == 2
    resynced = hub.published[-1][1]
    assert resynced.resync and dict(resynced) == {"items": ["x", "y", "z", "d"]}
    hub.did_change(1, 3, {}, {"items": splice(5, op(4, 0, "e"))})  # in step again
    assert session.state["items"] == ["x", "y", "z", "d", "e"]


def test_only_the_state_puts_a_session_back_in_step(hub: ScriptedHub) -> None:
    # protocol.md, "Client mirror" rule 1: out of step, a session's didChanges are ignored until its
    # session/state answers, even one with a whole value: the state is newer than all of them.
    session = hub.open(1, {"items": ["a"]})
    hub.did_change(1, 1, {}, {"items": splice(5, op(0, 0, "x"))})
    assert hub.published == [], "nothing fitted: no empty change set"
    hub.did_change(1, 2, {"items": ["p", "q"]})
    assert session.state["items"] == ["a"] and hub.published == []
    resync, = hub.requests("session/state")
    answer(hub.endpoint, {"jsonrpc": "2.0", "id": resync["id"], "result": {"revision": 2, "state": {"items": ["p", "q"]}}})
    hub.did_change(1, 3, {}, {"items": splice(3, op(2, 0, "r"))})
    assert session.state["items"] == ["p", "q", "r"] and session.revision == 3


def test_a_splice_after_a_revision_gap_is_not_applied(hub: ScriptedHub) -> None:
    session = hub.open(1, {"items": ["a"]})
    hub.did_change(1, 2, {}, {"items": splice(2, op(1, 0, "b"))})  # revision 1 was lost
    assert session.state["items"] == ["a"], "the splice may be relative to the lost revision"
    assert len(hub.requests("session/state")) == 1


def test_a_splice_of_a_member_that_is_not_a_list_resyncs(hub: ScriptedHub) -> None:
    session = hub.open(1, {"items": None})
    hub.did_change(1, 1, {}, {"items": splice(1, op(0, 0, "a")), "ghost": splice(0)})
    assert session.state == {"items": None} and len(hub.requests("session/state")) == 1


def test_a_splice_of_the_field_this_client_just_wrote_applies_to_the_written_value(hub: ScriptedHub) -> None:
    # No echo: the daemon counts the written list as sent, so a model that stores something else
    # (here: sorted) sends the difference from the written list, before the write's response.
    session = hub.open(1, {"tags": ["a"]})

    def daemon(pending: Pending) -> None:
        assert pending.params == {"session": 1, "field": "tags", "value": ["c", "b"]}
        hub.did_change(1, 1, {}, {"tags": splice(2, op(0, 2, "b", "c"))}, cause=pending.id)
        answer(hub.endpoint, {"jsonrpc": "2.0", "id": pending.id, "result": {"revision": 1}})

    assert drive(session._set_flow("tags", ["c", "b"], None), daemon) == 1
    assert session.state["tags"] == ["b", "c"], "the stored value, not the written one"
    assert hub.requests("session/state") == []


def test_the_client_asks_for_splices_unless_told_not_to(daemon_path: str) -> None:
    for wanted, sent in ((True, {"splices": True}), (False, {})):
        hub = ScriptedHub(daemon_path, splices=wanted)

        def daemon(pending: Pending) -> None:
            answer(hub.endpoint, {"jsonrpc": "2.0", "id": pending.id, "result": {
                "protocolVersion": 1, "serverInfo": {"name": "binderyd", "version": "0"}, "viewModels": [],
                **({"capabilities": sent} if wanted else {})}})

        drive(hub._start_flow(True), daemon)
        initialize, = hub.requests("initialize")
        assert initialize["params"]["capabilities"] == sent
        assert hub.capabilities == sent


# The recorded transcripts, replayed through the shared core: the client sends the same requests
# (ids included) and its state matches every session/state the daemon answered.

def transcript_messages(name: str) -> List[Dict[str, Any]]:
    with open(os.path.join(TRANSCRIPTS, name), encoding="utf-8") as file:
        return [json.loads(line) for line in file if line.strip()]


def replay_through_core(hub: ScriptedHub, name: str) -> None:
    lines = transcript_messages(name)
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if "in" not in line:
            continue
        sent = line["in"]
        outs: List[Dict[str, Any]] = []
        while index < len(lines) and "out" in lines[index]:
            outs.append(lines[index]["out"])
            index += 1

        def daemon(pending: Pending) -> None:
            assert (pending.id, pending.method) == (sent["id"], sent["method"])
            if sent["method"] != "initialize":  # the client sends its own processId, clientInfo
                assert pending.params == sent.get("params"), "the client sends what the transcript did"
            for out in outs:
                answer(hub.endpoint, out)

        try:
            result = drive(request_flow(hub, sent), daemon)
        except Exception as error:  # an error the transcript records
            assert "error" in outs[-1], error
            continue
        if sent["method"] == "session/state":
            session = hub._sessions[sent["params"]["session"]]
            assert (session.revision, session.state) == (result["revision"], result["state"])
    assert [m["method"] for m in hub.endpoint.sent if "id" in m and m["method"] == "session/state"] == \
        [line["in"]["method"] for line in lines if "in" in line and line["in"]["method"] == "session/state"], \
        "no resync: the client never fell out of step"


def request_flow(hub: ScriptedHub, sent: Dict[str, Any]) -> Any:
    """The client call that sends this request."""
    method, params = sent["method"], sent.get("params") or {}
    session = hub._sessions.get(params.get("session"))  # type: ignore[arg-type]
    if method == "initialize":
        return hub._start_flow(True)
    if method == "session/open":
        return hub._open_flow(params["type"], params.get("args"), params.get("observe"), params.get("key"), None,
                              params.get("schemaHash"), params.get("restore"))
    if method == "setField" and session is not None:
        return session._set_flow(params["field"], params["value"], None)
    if method == "invoke" and session is not None:
        return session._invoke_flow(params["command"], params.get("args", MISSING), None)
    if method in ("session/undo", "session/redo") and session is not None:
        return session._history_flow(method, None)
    return hub._call_flow(method, params, None)  # session/state (left to compare), snapshot, clock, ...


def test_splices_transcript_replays_through_the_core(hub: ScriptedHub) -> None:
    replay_through_core(hub, "splices.jsonl")
    assert hub.capabilities == {"splices": True}
    spliced = [changes for _, changes in hub.published if changes.splices]
    assert len(spliced) == 4 and all(len(c["movies"]) == c.splices["movies"]["length"] for c in spliced)


def test_capabilities_transcript_replays_through_the_core(hub: ScriptedHub) -> None:
    replay_through_core(hub, "capabilities.jsonl")
    assert hub.capabilities == {}


@pytest.mark.parametrize("name", ["movies.jsonl", "undo.jsonl", "undo-commands.jsonl", "snapshot.jsonl"])
def test_other_transcripts_replay_through_the_core(hub: ScriptedHub, name: str) -> None:
    replay_through_core(hub, name)
    if name == "undo.jsonl":  # what no echo, undo and redo leave: fields and the output agree
        state = hub._sessions[1].state
        assert state["name"] == "Ada" and state["companyName"] == "Mills"
        assert state["prettyString"].startswith("Name: Ada\nCompany: Mills\n")


def test_the_conformance_replay_includes_the_new_transcripts() -> None:
    from test_conformance import FILES
    names = {os.path.basename(path) for path in FILES}
    assert {"splices.jsonl", "capabilities.jsonl", "undo.jsonl", "undo-commands.jsonl", "snapshot.jsonl"} <= names


# Seeded random sequences against the real daemon: state equals session/state after every step.

TITLES = ["Alien", "Brazil", "Heat", "Jaws", "Ran", "Up", "Zelig"]
RATINGS = ["notSeen", "terrible", "poor", "decent", "good", "excellent"]
OBSERVE = [None, ["movies"], ["isPresentingAddMovie", "movies"]]


class Shadow:
    """Folds every change set a listener gets: proof that callbacks see whole new values."""

    def __init__(self, session: Session) -> None:
        self.state = dict(session.state)
        self.splices = 0
        session.on_change(self.take)

    def take(self, changes: Changes) -> None:
        for name, edit in changes.splices.items():
            assert apply_splice(self.state[name], edit) == changes[name], "the splice makes the whole value"
            self.splices += 1
        self.state.update(changes)


def check(client: Client, sessions: List[Session], shadows: Dict[int, Shadow], step: int) -> None:
    client.drain_callbacks()
    for session in sessions:
        fresh = client.request("session/state", {"session": session.id})
        assert session.state == fresh["state"], "step %d, session %d: state differs from session/state" % (
            step, session.id)
        assert session.revision == fresh["revision"], "step %d, session %d: revision" % (step, session.id)
        if session.id in shadows:  # (own writes are not replayed to listeners: compare the list only)
            assert shadows[session.id].state["movies"] == fresh["state"]["movies"], \
                "step %d, session %d: the change sets do not add up to the list" % (step, session.id)


def save(adder: Session, rng: random.Random) -> None:
    adder.set("title", rng.choice(TITLES))
    adder.set("rating", rng.choice(RATINGS))
    adder.invoke("save")


def random_sequence(client: Client, seed: int, steps: int = 60) -> int:
    """Saves from several addMovie sessions into several lists, some opened late, some observing
    part of the state, with observe changes, closes and concurrent saves; returns the number of
    change sets that came as splices."""
    rng = random.Random(seed)
    adders = [client.open("addMovie") for _ in range(3)]
    lists = [client.open("movieList"), client.open("movieList", observe=["movies"])]
    shadows = {session.id: Shadow(session) for session in lists}
    for step in range(steps):
        roll = rng.random()
        if roll < 0.5:
            save(rng.choice(adders), rng)
        elif roll < 0.6:
            late = client.open("movieList", observe=rng.choice(OBSERVE))
            lists.append(late)
            shadows[late.id] = Shadow(late)
        elif roll < 0.67 and len(lists) > 1:
            lists.pop(rng.randrange(len(lists))).close()
        elif roll < 0.75:
            rng.choice(lists).set("isPresentingAddMovie", rng.random() < 0.5)
        elif roll < 0.82:
            rng.choice(lists).observe(rng.choice(OBSERVE) or ["movies", "isPresentingAddMovie"])
        elif roll < 0.88:
            adders.append(client.open("addMovie"))
            if len(adders) > 4:
                adders.pop(0).close()
        else:  # saves from several threads at once: pipelined, fanned out to every list
            futures = [background(save, adder, random.Random(rng.random())) for adder in adders]
            for future in futures:
                future.result(timeout=20)
        check(client, lists + adders, shadows, step)
    return sum(shadow.splices for shadow in shadows.values())


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("splices", [True, False], ids=["splices", "whole"])
def test_random_saves_keep_state_equal_to_session_state(daemon_path: str, seed: int, splices: bool,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    with Client(daemon_path, ["--deterministic", "--seed", str(seed)], timeout=20, splices=splices) as client:
        assert client.capabilities == ({"splices": True} if splices else {})
        spliced = random_sequence(client, seed)
    if splices:
        assert spliced > 10, "the daemon sent splices, and the client folded them"
    else:
        assert spliced == 0
    assert "out of step" not in caplog.text, "every splice fitted: no resync was needed"


def test_random_saves_with_asyncio(daemon_path: str) -> None:
    async def main() -> int:
        rng = random.Random(11)
        spliced = 0
        async with AsyncClient(daemon_path, ["--deterministic"], timeout=20) as client:
            adder = await client.open("addMovie")
            lists = [await client.open("movieList")]

            def count(changes: Changes) -> None:
                nonlocal spliced
                spliced += len(changes.splices)
            lists[0].on_change(count)
            for step in range(40):
                if rng.random() < 0.2:
                    lists.append(await client.open("movieList", observe=rng.choice(OBSERVE)))
                await adder.set("title", rng.choice(TITLES))
                await adder.invoke("save")
                for session in lists:
                    fresh = await client.request("session/state", {"session": session.id})
                    assert (session.revision, session.state) == (fresh["revision"], fresh["state"]), step
            await client.drain_callbacks()
        return spliced

    assert run(main()) >= 39


def test_typed_sessions_see_whole_lists(daemon_path: str) -> None:
    seen: List[MovieListChanges] = []
    with Client(daemon_path, ["--deterministic"]) as client:
        movies = MovieListSession.open(client)
        movies.on_change(seen.append)
        add = AddMovieSession.open(client)
        for title in ("Alien", "Brazil", "Heat"):
            add.set_title(title)
            add.save()
        client.drain_callbacks()
        assert [[m["fullTitle"] for m in changes.get("movies", [])] for changes in seen] == [
            ["Alien"], ["Alien", "Brazil"], ["Alien", "Brazil", "Heat"]]
        assert movies.state["movies"] == client.request("session/state", {"session": movies.id})["state"]["movies"]


def test_a_closed_list_is_not_folded_into(daemon_path: str) -> None:
    with Client(daemon_path, ["--deterministic"]) as client:
        first = client.open("movieList")
        add = client.open("addMovie")
        add.set("title", "Alien")
        add.invoke("save")
        first.close()
        add.invoke("save")
        assert len(first.state["movies"]) == 1
        with pytest.raises(UnknownSession):
            first.refresh()

