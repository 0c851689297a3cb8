"""Timeouts and Ctrl-C send $/cancelRequest; the daemon answers RequestCancelled and resets state."""
from __future__ import annotations

import _thread
import json
import signal
import threading
from typing import Any, List

import pytest

from bindery import Client, RequestCancelled, RequestTimeout, Session
from helpers import background


def ready_login(client: Client) -> Session:
    login = client.open("login")
    login.set("firstName", "Ada")
    login.set("lastName", "Lovelace")
    return login


def recorded_inputs(path: str) -> List[Any]:
    with open(path) as file:
        return [json.loads(line)["in"] for line in file if line.startswith('{"in":')]


def test_a_timeout_cancels_the_command_and_state_is_reset(daemon_path: str, tmp_path: Any) -> None:
    record = str(tmp_path / "record.jsonl")
    with Client(daemon_path, ["--deterministic", "--record", record]) as client:
        login = ready_login(client)
        with pytest.raises(RequestTimeout) as caught:
            login.invoke("login", timeout=0.5)  # the virtual clock never moves: it cannot answer
        error = caught.value
        assert isinstance(error, TimeoutError) and error.method == "invoke"
        assert isinstance(error.cancellation, RequestCancelled)
        assert error.cancellation.message == "Request cancelled: by the client"
        # The cancellation's didChange came before its response: state is already reset.
        assert login.state["login.running"] is False and login.state["userLoadingInProgress"] is False
        assert login.state["login.enabled"] is True and login.state["loggedInUser"] is None
        request_id = error.request_id
        # The session is usable again, and a later login still works.
        assert client.advance_clock(5000) == 5000
        assert login.state["loggedInUser"] is None
    cancels = [m for m in recorded_inputs(record) if m.get("method") == "$/cancelRequest"]
    assert cancels == [{"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": request_id}}]


def test_ctrl_c_during_invoke_cancels_it(client: Client) -> None:
    login = ready_login(client)
    # Python's own Ctrl-C handler, whatever this process inherited: a shell starts a background job
    # (`cmd &` without job control, as a CI script or a test lane does) with SIGINT ignored, and
    # then interrupt_main does nothing at all.
    inherited = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)  # as if the user pressed Ctrl-C
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            login.invoke("login")
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, inherited)
    # The daemon got $/cancelRequest: the command unwinds without the clock moving.
    login.wait_until(lambda s: not s["login.running"], timeout=10)
    assert login.state["loggedInUser"] is None


def test_other_sessions_are_untouched_by_a_cancellation(client: Client) -> None:
    first, second = ready_login(client), ready_login(client)
    with pytest.raises(RequestTimeout):
        first.invoke("login", timeout=0.3)
    call = background(second.invoke, "login")
    second.wait_until(lambda s: s["login.running"], timeout=10)
    client.advance_clock(1500)
    assert call.result(timeout=10)["firstName"] == "Ada"
    assert first.state["loggedInUser"] is None and second.state["loggedInUser"] is not None
