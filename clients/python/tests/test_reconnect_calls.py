"""Calls made while a client reconnects to its shared daemon (protocol.md, "Reconnecting"): a keyed
session's call waits for the reconnect (within its timeout), then runs on the reattached session;
an unkeyed session's raises at once; a client closed meanwhile ends the wait with the session's end.

The client is made with ``start=False`` and the daemon killed: no daemon comes back until the test
starts one, so every call below is made while the client is still reconnecting."""
from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Callable

import pytest

from bindery import AsyncClient, Client, DaemonExited, RequestTimeout
from helpers import background, daemons_on, run


def start_daemon(daemon_path: str) -> None:
    """A shared daemon on the ``auto`` socket, left running (a client's close ends its connection only)."""
    Client(daemon_path, socket="auto").close()


def kill_daemon(runtime: Path) -> None:
    [pid] = daemons_on(str(runtime / "bindery" / "daemon.sock"))
    os.kill(pid, signal.SIGKILL)


def wait_for(condition: Callable[[], bool], limit: float = 30) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "condition not met"
        time.sleep(0.01)


def test_a_keyed_sessions_call_made_while_reconnecting_waits_and_runs_on_the_reattached_session(
        runtime: Path, daemon_path: str) -> None:
    start_daemon(daemon_path)
    with Client(daemon_path, socket="auto", start=False, timeout=20) as client:
        form = client.open("survey", key="form-1")
        scratch = client.open("email")
        kill_daemon(runtime)
        wait_for(lambda: client.reconnecting)

        with pytest.raises(DaemonExited):  # no key: its session is gone, at once
            scratch.set("email", "a@b.co")
        with pytest.raises(RequestTimeout, match="still reconnecting"):  # no daemon yet: its timeout ends the wait
            form.set("name", "Ada", timeout=0.2)
        writing = background(form.set, "name", "Ada")
        opening = background(client.open, "email")
        start_daemon(daemon_path)  # the reconnect can succeed now
        writing.result(30)
        assert not client.reconnecting and not form.closed
        assert form.state["name"] == "Ada" and form.refresh()["name"] == "Ada"  # in the reattached session
        assert opening.result(30).type == "email" and not opening.result().closed  # opened on the new daemon

        kill_daemon(runtime)  # again; then the client is closed while a call waits
        wait_for(lambda: client.reconnecting)
        waiting = background(form.set, "name", "Grace")
        client.close()
        with pytest.raises(DaemonExited):
            waiting.result(30)
        with pytest.raises(DaemonExited):  # what a call on it raises from now on
            form.set("name", "Grace")


def test_the_asyncio_clients_keyed_calls_wait_for_the_reconnect_too(runtime: Path, daemon_path: str) -> None:
    start_daemon(daemon_path)

    async def until(condition: Callable[[], bool]) -> None:
        while not condition():
            await asyncio.sleep(0.01)

    async def scenario() -> None:
        async with AsyncClient(daemon_path, socket="auto", start=False, timeout=20) as client:
            form = await client.open("survey", key="form-1")
            scratch = await client.open("email")
            kill_daemon(runtime)
            await until(lambda: client.reconnecting)

            with pytest.raises(DaemonExited):
                await scratch.set("email", "a@b.co")
            with pytest.raises(RequestTimeout, match="still reconnecting"):
                await form.set("name", "Ada", timeout=0.2)
            writing = asyncio.ensure_future(form.set("name", "Ada"))
            await asyncio.sleep(0)  # the call starts, and waits
            assert not writing.done()
            await asyncio.get_running_loop().run_in_executor(None, start_daemon, daemon_path)
            await writing
            assert not client.reconnecting and not form.closed
            assert form.state["name"] == "Ada" and (await form.refresh())["name"] == "Ada"

            kill_daemon(runtime)
            await until(lambda: client.reconnecting)
            waiting = asyncio.ensure_future(form.set("name", "Grace"))
            await asyncio.sleep(0)
            await client.close()
            with pytest.raises(DaemonExited):
                await waiting

    run(scenario())
