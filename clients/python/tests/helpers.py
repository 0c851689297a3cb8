"""Helpers for the tests (fixtures are in conftest.py)."""
from __future__ import annotations

import asyncio
import concurrent.futures
import subprocess
from typing import Any, Awaitable, Callable, List, TypeVar

T = TypeVar("T")

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="test-bg")


def run(coroutine: Awaitable[T], timeout: float = 30) -> T:
    """Runs a test coroutine on a fresh event loop, with a hang guard."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


def background(function: Callable[..., T], *args: Any, **kwargs: Any) -> "concurrent.futures.Future[T]":
    """Runs a blocking call on another thread (e.g. an invoke that waits for advance_clock)."""
    return _pool.submit(function, *args, **kwargs)


def daemons_on(path: str) -> List[int]:
    """The daemons listening on ``path`` (not their supervisors: ``--supervise-listen=PATH`` is one word)."""
    found = subprocess.run(["pgrep", "-f", "--", "--listen " + path], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]
