"""Helpers for the tests (fixtures are in conftest.py)."""
from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any, Awaitable, Callable, TypeVar

T = TypeVar("T")

_pool = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="test-bg")


def run(coroutine: Awaitable[T], timeout: float = 30) -> T:
    """Runs a test coroutine on a fresh event loop, with a hang guard."""
    return asyncio.run(asyncio.wait_for(coroutine, timeout))


def background(function: Callable[..., T], *args: Any, **kwargs: Any) -> "concurrent.futures.Future[T]":
    """Runs a blocking call on another thread (e.g. an invoke that waits for advance_clock)."""
    return _pool.submit(function, *args, **kwargs)
