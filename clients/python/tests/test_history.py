"""History (protocol.md, "History"): undo, redo, snapshots, restore, and binderyd --state DIR.

Against the real daemon, in deterministic mode (a typing burst is writes to one field less than
500 ms apart on the session's clock, which moves only on advance_clock). After each call, the
client's state must equal a fresh session/state: the fields an undo writes back come by didChange
(cause: the undo) and the no-echo bookkeeping of earlier writes must not hide them.
"""
from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, List

import pytest

from bindery import AsyncClient, Changes, Client, History, Session, SnapshotMismatch, UnknownSession
from bindery.seeds import AsyncSurveySession, SurveySession
from helpers import run

SURVEY = ["name", "companyName", "prettyString"]


def in_step(client: Client, session: Session) -> None:
    fresh = client.request("session/state", {"session": session.id})
    assert (session.revision, session.state) == (fresh["revision"], fresh["state"])


def pretty(name: str = "--", company: str = "--") -> str:
    return ("Name: %s\nCompany: %s\nExperience: --\nCurrent Employer?: NO\napprox Salary: --\nComments: --"
            % (name, company))


def test_undo_takes_back_a_typing_burst_at_once_and_redo_writes_it_again(client: Client) -> None:
    form = client.open("survey", observe=SURVEY)
    seen: List[Changes] = []
    form.on_change(seen.append)
    for text in ("A", "Ad", "Ada"):  # fast consecutive writes: one step
        form.set("name", text)
    undone = form.undo()
    assert undone == History(form.revision, can_undo=False, can_redo=True)
    assert (form.state["name"], form.state["prettyString"]) == (None, pretty())
    in_step(client, form)
    client.drain_callbacks()
    assert seen[-1]["name"] is None, "the field itself comes back"
    assert seen[-1].cause is not None, "caused by the undo"
    redone = form.redo()
    assert (redone.can_undo, redone.can_redo) == (True, False)
    assert form.state["name"] == "Ada"
    in_step(client, form)
    assert form.redo() == History(form.revision, True, False), "nothing to redo: nothing changes"


def test_a_pause_or_another_field_starts_a_new_step(client: Client) -> None:
    form = client.open("survey", observe=SURVEY)
    form.set("name", "Ada")
    client.advance_clock(1000)  # a pause: the next write to the same field is a step of its own
    form.set("name", "Ada L")
    form.set("companyName", "Engines")  # another field: another step
    assert form.undo().can_undo
    assert (form.state["name"], form.state["companyName"]) == ("Ada L", None)
    form.undo()
    assert form.state["name"] == "Ada"
    last = form.undo()
    assert form.state["name"] is None and not last.can_undo and last.can_redo
    in_step(client, form)


def test_a_new_write_clears_what_could_be_redone(client: Client) -> None:
    form = client.open("survey", observe=SURVEY)
    form.set("name", "Ada")
    client.advance_clock(1000)
    form.set("name", "Grace")
    assert form.undo().can_redo and form.state["name"] == "Ada"
    form.set("companyName", "Navy")
    revision = form.revision
    assert form.redo() == History(revision, True, False)
    assert (form.state["name"], form.state["companyName"]) == ("Ada", "Navy")
    in_step(client, form)


def test_undo_is_per_session(client: Client) -> None:
    add = client.open("addMovie")
    movies = client.open("movieList", observe=["movies"])
    add.set("title", "Alien")
    add.invoke("save")
    assert movies.undo() == History(movies.revision, False, False), "the list's client wrote nothing"
    assert len(movies.state["movies"]) == 1
    add.undo()
    assert (add.state["title"], add.state["canSave"]) == ("", False)
    in_step(client, add)
    in_step(client, movies)


def test_pipelined_writes_and_undo_keep_state_exact(daemon_path: str) -> None:
    # Sent back to back: the write's no-echo store (at its response) comes before the undo's
    # didChange, which then writes the field back.
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic"], timeout=20) as client:
            form = await client.open("survey", observe=SURVEY)
            await asyncio.gather(form.set("name", "A"), form.set("name", "Ad"), form.undo(),
                                 form.set("companyName", "X"))
            fresh = await client.request("session/state", {"session": form.id})
            assert form.state == fresh["state"] and form.state["name"] is None and form.state["companyName"] == "X"
            await asyncio.gather(form.undo(), form.redo(), form.undo(), form.set("name", "Z"), form.redo())
            fresh = await client.request("session/state", {"session": form.id})
            assert (form.revision, form.state) == (fresh["revision"], fresh["state"])

    run(main())


def test_undo_on_a_closed_session_fails_locally(client: Client) -> None:
    form = client.open("email")
    form.close()
    with pytest.raises(UnknownSession) as caught:
        form.undo()
    assert caught.value.local
    with pytest.raises(UnknownSession):
        form.take_snapshot()


def test_a_snapshot_restores_into_a_new_session(client: Client) -> None:
    form = client.open("survey", observe=SURVEY)
    form.set("name", "Ada")
    form.set("yearsOfExperience", 12)
    snapshot = form.take_snapshot()
    assert snapshot["type"] == "survey" and snapshot["schemaHash"] == SurveySession.schema_hash
    assert snapshot["fields"]["name"] == "Ada" and snapshot["fields"]["yearsOfExperience"] == 12
    assert "prettyString" not in snapshot["fields"], "outputs are recomputed, not kept"
    copy = client.open("survey", restore=json.loads(json.dumps(snapshot)))  # kept as JSON, read back
    assert copy.id != form.id and copy.revision == 0 and not copy.restored
    assert copy.state["name"] == "Ada" and copy.state["experienceString"] == "12.0 yrs"
    copy.set("name", "Grace")
    assert form.state["name"] == "Ada", "two sessions: the restored one is a copy"
    in_step(client, copy)


@pytest.mark.parametrize("doctored,reason", [
    ({"type": "survey", "fields": {"nickname": "Amazing"}}, 'it has a field "nickname" the type does not have'),
    ({"type": "survey", "fields": {"yearsOfExperience": "twelve"}}, "expected number or null, found string"),
    ({"type": "survey", "fields": {"experienceString": "lots"}}, '"experienceString" is not a writable field'),
    ({"type": "email", "fields": {}}, "it is a snapshot of email"),
])
def test_a_doctored_snapshot_raises_snapshot_mismatch(client: Client, doctored: Any, reason: str) -> None:
    before = len(client.sessions)
    with pytest.raises(SnapshotMismatch) as caught:
        client.open("survey", restore=doctored)
    error = caught.value
    assert error.code == -32022 and not error.local
    assert error.data["type"] == "survey" and reason in error.data["reason"] and reason in str(error)
    assert len(client.sessions) == before, "nothing was opened"


def test_a_snapshot_from_another_schema_version_that_fits_is_taken(client: Client) -> None:
    form = client.open("email", restore={"type": "email", "schemaHash": "0000000000000000",
                                         "fields": {"email": "ada@example.com"}})
    assert form.state["isValid"] is True


def test_state_dir_keeps_a_keyed_session_across_a_restart(daemon_path: str, tmp_path: Path) -> None:
    state_dir = str(tmp_path / "state")
    with Client(daemon_path, ["--state", state_dir], timeout=20) as client:
        form = client.open("survey", key="form-1", observe=SURVEY)
        assert not form.restored
        form.set("name", "Ada")
        form.set("companyName", "Engines")
    # A new daemon: the key finds the stored fields; outputs are recomputed.
    with Client(daemon_path, ["--state", state_dir], timeout=20) as client:
        form = client.open("survey", key="form-1", observe=SURVEY)
        assert form.restored
        assert form.state == {"name": "Ada", "companyName": "Engines", "prettyString": pretty("Ada", "Engines")}
        again = client.open("survey", key="form-1")
        assert again is form and not form.restored, "a reopen of the live session restores nothing"
        other = client.open("survey", key="form-2")
        assert not other.restored and other.state["name"] is None
        in_step(client, form)


def test_state_dir_with_asyncio_and_typed_sessions(daemon_path: str, tmp_path: Path) -> None:
    state_dir = str(tmp_path / "state")

    async def main() -> None:
        async with AsyncClient(daemon_path, ["--state", state_dir], timeout=20) as client:
            form = await AsyncSurveySession.open(client, key="typed")
            await form.set_name("Grace")
            assert not form.restored
        async with AsyncClient(daemon_path, ["--state", state_dir], timeout=20) as client:
            form = await AsyncSurveySession.open(client, key="typed")
            assert form.restored and form.state["name"] == "Grace"
            await form.set_name("Grace H")
            assert (await form.undo()).can_redo and form.state["name"] == "Grace"
            snapshot = await form.take_snapshot()
            copy = await AsyncSurveySession.open(client, restore=snapshot)
            assert copy.state["name"] == "Grace"
            assert (await copy.redo()).can_undo is False

    run(main())


def test_typed_sessions_undo_redo_snapshot_and_restore(client: Client) -> None:
    form = SurveySession.open(client)
    form.set_name("Ada")
    assert form.undo() == History(form.revision, False, True) and form.state["name"] is None
    assert form.redo().can_undo and form.state["name"] == "Ada"
    copy = SurveySession.open(client, restore=form.take_snapshot())
    assert copy.state["name"] == "Ada" and not copy.restored
    with pytest.raises(SnapshotMismatch):
        SurveySession.open(client, restore={"type": "survey", "fields": {"nickname": "x"}})
