"""Shared fixtures: the real binderyd (never skipped: a missing daemon fails with the places tried)."""
from __future__ import annotations

import faulthandler
import os
import signal
import stat
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_ROOT = os.path.dirname(HERE)  # clients/python: import bindery without installing it
sys.path.insert(0, PACKAGE_ROOT)

from bindery import Client, DaemonNotFound, find_daemon  # noqa: E402
from helpers import daemons_on  # noqa: E402

REPO_ROOT = os.path.abspath(os.path.join(PACKAGE_ROOT, "..", ".."))
TRANSCRIPTS = os.path.join(REPO_ROOT, "Tests", "Transcripts")
HANG_GUARD = 45  # seconds: a test that takes this long is hung; dump stacks and stop


@pytest.fixture(autouse=True)
def hang_guard() -> Iterator[None]:
    """Dumps every thread's stack and exits if a test hangs, instead of hanging the suite."""
    faulthandler.dump_traceback_later(HANG_GUARD, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def daemon_path() -> str:
    try:
        return find_daemon()
    except DaemonNotFound as error:
        problem = str(error)
    pytest.fail("These tests run against a real binderyd; set BINDERYD=/path/to/binderyd or build it "
                "(swift build).\n" + problem, pytrace=False)


@pytest.fixture(scope="session")
def appd_path() -> str:
    """appd, the daemon of app-shaped example view models (Examples/AppViewModels): $APPD, else the
    repository's .build/debug/appd. Missing, the tests that need it fail saying how to build it."""
    path = os.environ.get("APPD") or os.path.join(REPO_ROOT, ".build", "debug", "appd")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("These tests run against appd (Examples/AppViewModels), not found at %s: build it "
                    "(swift build --product appd) or set APPD=/path/to/appd" % path, pytrace=False)
    return path


@pytest.fixture
def appd(appd_path: str) -> Iterator[Client]:
    """A client of a --deterministic appd."""
    with Client(appd_path, ["--deterministic"], timeout=20) as c:
        yield c


@pytest.fixture
def client(daemon_path: str) -> Iterator[Client]:
    """A client of a --deterministic daemon: the clock moves only on advance_clock."""
    with Client(daemon_path, ["--deterministic"], timeout=20) as c:
        yield c


@pytest.fixture
def live_client(daemon_path: str) -> Iterator[Client]:
    """A client of a daemon on the real clock."""
    with Client(daemon_path, timeout=20) as c:
        yield c


@pytest.fixture
def noisy_daemon(tmp_path: Any, daemon_path: str) -> str:
    """binderyd behind a script that first writes 25 numbered lines to stderr (the daemon is quiet)."""
    script = tmp_path / "noisy-binderyd"
    script.write_text('#!/bin/sh\nfor i in $(seq 1 25); do echo "noisy line $i" >&2; done\n'
                      'exec "%s" "$@"\n' % daemon_path)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: Any) -> Iterator[Path]:
    """A private XDG_RUNTIME_DIR (the ``auto`` socket's directory) and XDG_STATE_HOME; the shared
    daemons started on its socket are stopped afterwards."""
    directory = tmp_path / "xdg"
    directory.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))  # nothing written to the user's own
    yield directory
    for pid in daemons_on(str(directory / "bindery" / "daemon.sock")):
        os.kill(pid, signal.SIGTERM)  # it would idle out after a minute
