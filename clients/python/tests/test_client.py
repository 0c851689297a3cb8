"""Schemas, observe/refresh, the no-echo store, revision gaps, pipelining, framing choice."""
from __future__ import annotations

import threading
from typing import Any, Dict, List

import pytest

from bindery import NDJSON, Client, InvalidParams, Schema, UnknownField
from helpers import background


def test_initialize_and_describe(client: Client) -> None:
    assert client.protocol_version == 1 and client.server_info["name"] == "binderyd"
    schemas = client.describe()
    assert [s["type"] for s in schemas] == ["email", "survey", "login", "package", "element", "movieList",
                                            "addMovie", "bottomBar"]
    assert client.describe("email") == [schemas[0]]
    login = client.schema("login")
    assert isinstance(login, Schema)
    assert login.writable == ["firstName", "lastName"]
    assert login.outputs == ["loginInputValid", "userLoadingInProgress", "loggedInUser", "errorMessage"]
    assert login.command_names == ["login"] and login.commands[0].is_async
    assert client.schema("addMovie").field_named("rating").cases[-1] == "excellent"  # type: ignore[union-attr]
    session = client.open("login")
    assert session.schema is login and session.fields == login.writable and session.commands == ["login"]


def test_observe_narrows_what_is_pushed(client: Client) -> None:
    survey = client.open("survey", observe=["prettyString"])
    assert list(survey.state) == ["prettyString"]
    survey.set("name", "Ada")
    assert survey.state["prettyString"].startswith("Name: Ada") and "name" not in survey.state
    state = survey.state
    assert survey.observe(["name", "experienceString"]) == {"name": "Ada", "experienceString": "--"}
    assert survey.state is state  # the same live dict
    survey.set("yearsOfExperience", 12)
    assert survey.state == {"name": "Ada", "experienceString": "12.0 yrs"}
    survey.set("companyName", "not observed")
    assert "companyName" not in survey.state
    with pytest.raises(KeyError):
        survey.get("companyName")
    with pytest.raises(UnknownField):
        survey.get("bogus")
    assert survey.get("companyName", None) is None


def test_written_value_is_stored_because_the_daemon_does_not_echo(client: Client) -> None:
    form = client.open("email")
    seen: List[Dict[str, Any]] = []
    form.on_change(seen.append)
    for text in ["a", "a@", "a@b", "a@b.c"]:
        form.set("email", text)
        assert form.state["email"] == text
    assert form.revision == 0
    client.drain_callbacks(10)
    assert seen == []  # nothing came from the daemon


def test_a_revision_gap_resynchronises(client: Client) -> None:
    form = client.open("email")
    form.set("email", "a@b.co")
    seen: List[Dict[str, Any]] = []
    form.on_change(seen.append)
    # A didChange that skips revisions, as if messages were lost: the client asks session/state and
    # folds nothing of it (protocol.md, "Client mirror"), nor any didChange until the state answers.
    client.connection.handle_message({"jsonrpc": "2.0", "method": "didChange", "params": {
        "session": form.id, "revision": 7, "changes": {"isValid": False, "validationMessage": "bogus"}}})
    assert form.state["validationMessage"] == "Email is valid" and form.revision == 1
    form.set("email", "nope")  # sent after session/state: handled after it, folded after its answer
    assert form.state == {"email": "nope", "isValid": False, "validationMessage": "Email is invalid"}
    assert form.revision == 2
    client.drain_callbacks(10)
    assert all(changes.get("validationMessage") != "bogus" for changes in seen)


def test_a_lost_didchange_seen_in_a_response_resynchronises(client: Client) -> None:
    form = client.open("email")
    deliver = client.connection.on_did_change
    assert deliver is not None
    client.connection.on_did_change = lambda params: None  # the write's didChange is lost
    form.set("email", "a@b.co")  # answered with revision 1: the mirror has 0, so it asks session/state
    client.connection.on_did_change = deliver
    state = form.wait_until(lambda state: state["isValid"], timeout=10)
    assert state == {"email": "a@b.co", "isValid": True, "validationMessage": "Email is valid"}
    assert form.revision == 1


def test_pipelined_calls_from_many_threads(client: Client) -> None:
    forms = [client.open("email") for _ in range(4)]
    calls = [background(form.set, "email", "user%d@example.com" % i) for i, form in enumerate(forms)
             for _ in range(5)]
    for call in calls:
        assert call.result(timeout=10) == 1
    assert all(form.state["isValid"] for form in forms)
    assert client.connection.pending_count() == 0


def test_newline_delimited_framing(daemon_path: str) -> None:
    with Client(daemon_path, framing=NDJSON) as client:
        form = client.open("email")
        form.set("email", "a@b.co")
        assert form.state["isValid"]


def test_without_initialize_the_daemon_still_serves(daemon_path: str) -> None:
    with Client(daemon_path, initialize=False) as client:
        form = client.open("email")
        assert form.schema is None and client.server_info == {}
        with pytest.raises(UnknownField) as caught:
            form.set("emial", "x")  # no schema: the daemon says it
        assert not caught.value.local


def test_sessions_as_context_managers(client: Client) -> None:
    with client.open("email") as form:
        form.set("email", "a@b.co")
    assert form.closed and client.sessions == []


def test_a_stored_value_that_differs_from_the_written_one_wins(client: Client) -> None:
    survey = client.open("survey", observe=["approxSalary", "salaryString"])
    seen: List[Dict[str, Any]] = []
    survey.on_change(seen.append)
    survey.set("approxSalary", 1.23456789)  # a Float field: the model stores 1.2345679 and sends it
    assert survey.state["approxSalary"] == 1.2345679
    survey.set("approxSalary", 45000)  # stored as written: not echoed, the client stores it
    assert survey.state == {"approxSalary": 45000, "salaryString": "45.0k"}
    client.drain_callbacks(10)
    assert seen[0]["approxSalary"] == 1.2345679 and "approxSalary" not in seen[1]


def test_values_json_cannot_carry_fail_fast_instead_of_hanging(client: Client) -> None:
    survey = client.open("survey")
    before = client.connection._next_id
    with pytest.raises(InvalidParams) as huge:
        survey.set("yearsOfExperience", 10 ** 400)  # the daemon would answer a parse error with id null
    assert huge.value.local
    with pytest.raises(InvalidParams):
        survey.set("yearsOfExperience", float("nan"))
    assert client.connection._next_id == before
    assert survey.set("yearsOfExperience", 2 ** 64) == 1
