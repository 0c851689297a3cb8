"""Every error the seeds can produce arrives as its own exception class; bad names fail fast."""
from __future__ import annotations

from typing import List

import pytest

from bindery import (
    BinderyError, Client, CommandDisabled, CommandFailed, InvalidParams, InvalidRequest, MethodNotFound,
    NeedsDeterministicMode, OpenFailed, ParseError, ReadOnlyField, RequestCancelled, UnknownCommand,
    UnknownField, UnknownSession, UnknownType, WrongValueType,
)
from bindery.framing import encode_frame
from helpers import background


def sent_so_far(client: Client) -> int:
    """How many requests the client has numbered: unchanged by a call that failed fast."""
    return client.connection._next_id


def test_unknown_field_fails_fast_listing_the_writable_ones(client: Client) -> None:
    form = client.open("email")
    before = sent_so_far(client)
    with pytest.raises(UnknownField) as caught:
        form.set("emial", "x")
    error = caught.value
    assert error.local and error.code == -32012 and sent_so_far(client) == before
    assert "emial" in error.message and "writable fields: email" in error.message
    assert error.data == {"session": form.id, "field": "emial", "known": ["email", "isValid", "validationMessage"]}


def test_unknown_command_fails_fast_listing_the_valid_ones(client: Client) -> None:
    login = client.open("login")
    email = client.open("email")
    before = sent_so_far(client)
    with pytest.raises(UnknownCommand) as caught:
        login.invoke("logout")
    assert caught.value.local and "known: login" in caught.value.message
    with pytest.raises(UnknownCommand) as caught:
        email.invoke("submit")
    assert "email has no commands" in caught.value.message
    with pytest.raises(UnknownField):
        login.observe(["firstName", "bogus"])
    with pytest.raises(UnknownField):
        client.open("email", observe=["bogus"])
    assert sent_so_far(client) == before


def test_the_daemon_answers_the_same_errors_for_the_same_mistakes(client: Client) -> None:
    form = client.open("email")
    with pytest.raises(UnknownField) as caught:
        client.request("setField", {"session": form.id, "field": "emial", "value": "x"})
    assert not caught.value.local and caught.value.data["known"] == ["email", "isValid", "validationMessage"]
    with pytest.raises(UnknownCommand) as caught:
        client.request("invoke", {"session": form.id, "command": "submit"})
    assert caught.value.data == {"session": form.id, "command": "submit", "known": []}
    with pytest.raises(UnknownField):
        client.request("session/observe", {"session": form.id, "properties": ["bogus"]})


def test_daemon_errors_one_class_each(client: Client) -> None:
    form = client.open("email")
    with pytest.raises(UnknownType) as unknown_type:
        client.open("emial")
    assert "emial" in unknown_type.value.data["type"] and "email" in unknown_type.value.data["known"]
    with pytest.raises(UnknownType):
        client.describe("nope")
    with pytest.raises(UnknownSession) as unknown_session:
        client.request("session/state", {"session": 99})
    assert unknown_session.value.data == {"session": 99}
    with pytest.raises(ReadOnlyField):
        form.set("isValid", True)
    with pytest.raises(ReadOnlyField):
        client.open("login").set("login.enabled", True)
    with pytest.raises(WrongValueType) as wrong:
        form.set("email", 42)
    assert wrong.value.data == {"session": form.id, "field": "email", "expected": "string", "found": "integer"}
    with pytest.raises(WrongValueType):
        form.set("email", None)
    with pytest.raises(WrongValueType) as out_of_range:
        client.open("survey").set("approxSalary", 1e300)
    assert "32-bit float" in out_of_range.value.message
    with pytest.raises(MethodNotFound) as method:
        client.request("no/such/method")
    assert method.value.data == {"method": "no/such/method"}
    with pytest.raises(InvalidParams) as params:
        client.request("session/open", {})
    assert params.value.data == {"param": "type"}
    with pytest.raises(InvalidParams):
        client.request("session/open", ["email"])
    with pytest.raises(InvalidRequest):
        client.request("exit")  # exit is a notification
    with pytest.raises(OpenFailed):
        client.open("element", {"symbol": "Xx"})
    assert form.set("email", "still@serving.com") == 1  # the daemon keeps serving after every error


def test_command_disabled_and_failed(client: Client) -> None:
    login = client.open("login")
    with pytest.raises(CommandDisabled) as disabled:
        login.invoke("login")
    assert disabled.value.data == {"session": login.id, "command": "login"}
    login.set("firstName", "Mallory")
    login.set("lastName", "X")
    call = background(login.invoke, "login")
    login.wait_until(lambda s: s["login.running"], timeout=10)
    with pytest.raises(CommandDisabled):
        login.invoke("login")  # already running: its enabled condition is false
    client.advance_clock(1500)
    with pytest.raises(CommandFailed):
        call.result(timeout=10)


def test_needs_deterministic_mode(live_client: Client) -> None:
    with pytest.raises(NeedsDeterministicMode) as caught:
        live_client.advance_clock(100)
    assert caught.value.data == {"method": "clock/advance"}


def test_closing_a_session_cancels_its_running_command(client: Client) -> None:
    login = client.open("login")
    login.set("firstName", "Ada")
    login.set("lastName", "Lovelace")
    call = background(login.invoke, "login")
    login.wait_until(lambda s: s["login.running"], timeout=10)
    login.close()
    with pytest.raises(RequestCancelled) as caught:
        call.result(timeout=10)
    assert caught.value.message == "Request cancelled: session %d was closed" % login.id
    with pytest.raises(UnknownSession) as closed:
        login.set("firstName", "x")
    assert closed.value.local
    login.close()  # idempotent
    with pytest.raises(UnknownSession):
        client.request("session/close", {"session": login.id})


def test_invalid_request_after_shutdown(client: Client) -> None:
    assert client.request("shutdown") is None
    with pytest.raises(InvalidRequest) as caught:
        client.open("email")
    assert "shut down" in caught.value.message


def test_parse_errors_name_no_request_and_go_to_the_orphan_handlers(client: Client) -> None:
    orphans: List[BinderyError] = []
    client.connection.orphan_error_handlers.append(orphans.append)
    client.connection.write(encode_frame(b'{"jsonrpc":"2.0","id":1,"method":', client.connection.framing))
    form = client.open("email")  # answered after the parse error: so that error has been read
    assert form.state["email"] == ""
    assert len(orphans) == 1 and isinstance(orphans[0], ParseError) and orphans[0].code == -32700
