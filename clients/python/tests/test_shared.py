"""Clients on a shared daemon (``Client(socket=...)``): keyed sessions shared live, optimistic writes."""
from __future__ import annotations

import os
import subprocess
import time
from typing import Any, Iterator

import pytest

from bindery import Client, StaleRevision, UnknownSession


@pytest.fixture
def socket_path(tmp_path: Any, daemon_path: str) -> Iterator[str]:
    path = str(tmp_path / "run" / "daemon.sock")
    yield path
    # Stop the daemon the first client started (it would idle out after a minute).
    found = subprocess.run(["pgrep", "-f", "--", "--listen " + path], capture_output=True, text=True).stdout
    for pid in found.split():
        os.kill(int(pid), 15)


def test_a_keyed_session_is_shared_live(socket_path: str, daemon_path: str) -> None:
    with Client(daemon_path, socket=socket_path, timeout=10) as editor, \
            Client(daemon_path, socket=socket_path, timeout=10) as script:
        form = editor.open("survey", key="form-1")
        filled = script.open("survey", key="form-1")
        assert filled.id == form.id and filled.key == "form-1"
        filled.set("name", "Ada")
        filled.set("yearsOfExperience", 12)
        assert form.wait_until(lambda state: state["experienceString"] == "12.0 yrs", timeout=5)
        assert form.state["name"] == "Ada"
        form.set("companyName", "Analytical Engines")  # typed in the form: the script sees it
        assert filled.wait_until(lambda state: state["companyName"] == "Analytical Engines", timeout=5)
        assert filled.state == form.state and filled.revision == form.revision
        # A private session is the opener's alone.
        mine = editor.open("email")
        with pytest.raises(UnknownSession):
            script.request("session/state", {"session": mine.id})


def test_expected_revision(socket_path: str, daemon_path: str) -> None:
    with Client(daemon_path, socket=socket_path, timeout=10) as a, \
            Client(daemon_path, socket=socket_path, timeout=10) as b:
        first = a.open("email", key="k")
        second = b.open("email", key="k")
        seen = second.revision
        first.set("email", "ada@example.com", expected_revision=seen)
        with pytest.raises(StaleRevision) as refused:
            second.set("email", "grace@example.com", expected_revision=seen)
        assert refused.value.data["value"] == "ada@example.com"
        assert refused.value.data["revision"] == seen + 1
        second.wait_until(lambda state: state["email"] == "ada@example.com", timeout=5)
        second.set("email", "grace@example.com", expected_revision=second.revision)
        assert first.wait_until(lambda state: state["email"] == "grace@example.com", timeout=5)


def test_auto_starts_a_daemon_once(tmp_path: Any, daemon_path: str, monkeypatch: Any) -> None:
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    path = str(runtime / "bindery" / "daemon.sock")
    try:
        with Client(daemon_path, socket="auto", timeout=10) as one, Client(daemon_path, socket="auto") as two:
            assert os.path.exists(path)
            assert one.open("email", key="x").id == two.open("email", key="x").id
        assert "listening on" in open(path + ".log").read()
    finally:
        found = subprocess.run(["pgrep", "-f", "--", "--listen " + path], capture_output=True, text=True).stdout
        for pid in found.split():
            os.kill(int(pid), 15)


def test_asyncio_client_on_the_shared_daemon(socket_path: str, daemon_path: str) -> None:
    import asyncio

    from bindery import AsyncClient

    async def main() -> None:
        async with AsyncClient(daemon_path, socket=socket_path, timeout=10) as one, \
                AsyncClient(daemon_path, socket=socket_path, timeout=10) as two:
            first = await one.open("email", key="k")
            second = await two.open("email", key="k")
            await first.set("email", "ada@example.com")
            await second.wait_until(lambda state: state["isValid"] is True, timeout=5)
            assert second.state == first.state
            with pytest.raises(StaleRevision):
                await second.set("email", "x", expected_revision=second.revision - 1)

    asyncio.run(main())
