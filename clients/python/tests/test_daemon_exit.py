"""A daemon that dies fails every call at once with DaemonExited, exit status and stderr included."""
from __future__ import annotations

import threading
from typing import Any, List

import pytest

from bindery import ClientClosed, Client, DaemonExited, Session
from helpers import background


def running_login(client: Client) -> Session:
    login = client.open("login")
    login.set("firstName", "Ada")
    login.set("lastName", "Lovelace")
    return login


def test_killing_the_daemon_mid_invoke_raises_daemon_exited(noisy_daemon: str) -> None:
    client = Client(noisy_daemon, ["--deterministic"])
    try:
        login = running_login(client)

        def kill_when_running() -> None:
            login.wait_until(lambda s: s["login.running"], timeout=10)
            client.process.kill()

        killer = threading.Thread(target=kill_when_running)
        killer.start()
        with pytest.raises(DaemonExited) as caught:
            login.invoke("login")  # would wait forever on the virtual clock
        killer.join(10)
        error = caught.value
        assert error.returncode == -9 and "killed by signal 9" in str(error)
        assert error.stderr == ["noisy line %d" % i for i in range(6, 26)]  # the last 20 lines
        assert "noisy line 25" in str(error)
        # Everything after fails at once, with the same story.
        with pytest.raises(DaemonExited):
            login.set("firstName", "x")
        with pytest.raises(DaemonExited):
            client.open("email")
        with pytest.raises(DaemonExited):
            login.wait_until(lambda s: False, timeout=10)
        assert not client.alive
    finally:
        assert client.close() == -9  # no hang, no shutdown attempt


def test_every_pending_call_fails_and_waiters_wake(daemon_path: str) -> None:
    client = Client(daemon_path, ["--deterministic"])
    try:
        logins = [running_login(client) for _ in range(3)]
        calls = [background(login.invoke, "login") for login in logins]
        waiter = background(logins[0].wait_until, lambda s: s["loggedInUser"] is not None)
        for login in logins:
            login.wait_until(lambda s: s["login.running"], timeout=10)
        client.connection.kill()
        for call in calls + [waiter]:
            with pytest.raises(DaemonExited):
                call.result(timeout=10)
    finally:
        client.close()


def test_a_daemon_that_exits_at_start_says_why(daemon_path: str) -> None:
    with pytest.raises(DaemonExited) as caught:
        Client(daemon_path, ["--no-such-flag"])
    assert caught.value.returncode == 2
    assert any('unknown argument "--no-such-flag"' in line for line in caught.value.stderr)


def test_a_daemon_that_exits_mid_session_on_its_own(daemon_path: str) -> None:
    client = Client(daemon_path)
    try:
        form = client.open("email")
        client.notify("exit")  # without shutdown: exit code 1
        with pytest.raises(DaemonExited) as caught:
            form.wait_until(lambda s: False, timeout=10)
        assert caught.value.returncode == 1
    finally:
        client.close()


def test_closing_cleanly_then_calling_says_closed(daemon_path: str) -> None:
    client = Client(daemon_path)
    form = client.open("email")
    assert client.close() == 0
    assert form.closed and not client.alive
    with pytest.raises(ClientClosed):
        form.set("email", "x")
    with pytest.raises(ClientClosed):
        client.open("email")
    client.close()  # idempotent


def test_leaving_the_with_block_on_an_exception_still_closes(daemon_path: str) -> None:
    seen: List[Any] = []
    with pytest.raises(ZeroDivisionError):
        with Client(daemon_path) as client:
            seen.append(client)
            1 / 0
    assert seen[0].process.returncode == 0
