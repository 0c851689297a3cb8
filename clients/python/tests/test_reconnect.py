"""A shared daemon killed under a client (``Client(socket=...)``): the client says how it ended,
reconnects on its own (starting a new daemon), and the same keyed Session object works on, with
the values the daemon kept (``--state``); an unkeyed session is closed."""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any, List

import pytest

from bindery import AsyncClient, Client, DaemonExited, UnknownSession
from bindery.reconnect import ConnectionEvent
from helpers import daemons_on, run


def stored(state: Path, text: str) -> bool:
    """Whether a daemon kept a keyed session holding ``text`` in the state directory (a folder per socket)."""
    return any(text in file.read_text() for file in (state / "bindery" / "sessions").glob("*/session-*.json"))


def test_a_killed_shared_daemon_is_reconnected_and_keyed_sessions_reattached(
        runtime: Path, daemon_path: str, caplog: Any) -> None:
    caplog.set_level(logging.WARNING, logger="bindery")
    path = str(runtime / "bindery" / "daemon.sock")
    events: List[ConnectionEvent] = []
    reconnected = threading.Event()

    def heard(event: ConnectionEvent) -> None:
        events.append(event)
        if event.kind == "reconnected":
            reconnected.set()

    with Client(daemon_path, socket="auto", timeout=20) as client:
        client.on_connection(heard)
        form = client.open("survey", key="form-1")
        scratch = client.open("email")
        form.set("name", "Ada")
        deadline = time.monotonic() + 20  # the daemon stores a keyed session 250 ms after it changes
        while not stored(runtime.parent / "state", "Ada") and time.monotonic() < deadline:
            time.sleep(0.02)
        assert stored(runtime.parent / "state", "Ada"), "the daemon did not store the keyed session"
        [pid] = daemons_on(path)
        os.kill(pid, signal.SIGKILL)

        assert reconnected.wait(30), [event.kind for event in events]
        assert [pid] != daemons_on(path), "a new daemon was started"
        lost = events[0]
        assert lost.kind == "lost" and isinstance(lost.error, DaemonExited) and lost.error.returncode == -9
        assert "killed by signal 9 (the shared daemon on %s (pid %d)" % (path, pid) in str(lost.error)
        assert events[1].kind == "reconnecting" and events[1].delay == 0.25
        done = events[-1]
        assert done.reopened == [form] and done.closed == [scratch]
        # The same Session object: the value the daemon kept, then a write as before.
        assert form.restored and form.state["name"] == "Ada" and not form.closed
        assert form.value("name") == "Ada"
        form.set("companyName", "Analytical Engines")
        assert form.refresh()["companyName"] == "Analytical Engines" and form.state["name"] == "Ada"
        with pytest.raises(UnknownSession, match="it had no key"):
            scratch.set("email", "a@b.co")
        said = caplog.text
        assert "reconnecting to %s in 0.25 s" % path in said and "reconnected to %s" % path in said


def test_the_asyncio_client_reconnects_too(runtime: Path, daemon_path: str) -> None:
    path = str(runtime / "bindery" / "daemon.sock")

    async def scenario() -> None:
        async with AsyncClient(daemon_path, socket="auto", timeout=20) as client:
            reconnected = asyncio.Event()
            events: List[ConnectionEvent] = []

            def heard(event: ConnectionEvent) -> None:
                events.append(event)
                if event.kind == "reconnected":
                    reconnected.set()
            client.on_connection(heard)
            form = await client.open("survey", key="form-1")
            scratch = await client.open("email")
            changes = form.changes()
            await form.set("name", "Ada")
            deadline = time.monotonic() + 20
            while not stored(runtime.parent / "state", "Ada") and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert stored(runtime.parent / "state", "Ada"), "the daemon did not store the keyed session"
            [pid] = daemons_on(path)
            os.kill(pid, signal.SIGKILL)
            await asyncio.wait_for(reconnected.wait(), 30)
            assert events[0].kind == "lost" and isinstance(events[0].error, DaemonExited)
            assert "killed by signal 9 (the shared daemon on %s (pid %d)" % (path, pid) in str(events[0].error)
            assert form.restored and form.state["name"] == "Ada"
            await form.set("companyName", "Analytical Engines")
            assert (await form.refresh())["companyName"] == "Analytical Engines"
            with pytest.raises(UnknownSession, match="it had no key"):
                await scratch.set("email", "a@b.co")
            while "Analytical Engines" not in str((await asyncio.wait_for(changes.__anext__(), 5)).get("prettyString")):
                pass  # the change stream goes on across the reconnect

    run(scenario())
