"""The callback threading contract the README states, kept by the code.

on_change callbacks run on one thread per client (``bindery-callbacks``; never the reader, never
the caller), in arrival order across sessions, with ``state`` already holding their change set.
From a callback it is safe to read state, to make calls (they block that callback only), to
``drain_callbacks`` (returns at once) and to close the client. asyncio: one task, the same rules.
"""
from __future__ import annotations

import asyncio
import threading
from typing import Any, List

from bindery import AsyncClient, Changes, Client
from helpers import run


def test_a_callback_may_call_the_client_and_drain_without_deadlock(client: Client) -> None:
    form, echo = client.open("email"), client.open("email")
    seen: List[Any] = []

    def mirror(changes: Changes) -> None:
        seen.append((threading.current_thread().name, client.drain_callbacks(0.5)))
        echo.set("email", form.state["email"])  # a blocking call from the callback thread

    form.on_change(mirror)
    form.set("email", "a@b.co")
    assert client.drain_callbacks(10)
    assert seen == [("bindery-callbacks", True)]
    assert echo.state["isValid"] is True and threading.current_thread().name != "bindery-callbacks"


def test_closing_the_client_from_a_callback_does_not_hang(daemon_path: str) -> None:
    client = Client(daemon_path)
    form = client.open("email")
    closed = threading.Event()
    form.on_change(lambda changes: (client.close(), closed.set()))
    form.set("email", "a@b.co")
    assert closed.wait(10) and not client.alive
    client.close()


def test_async_callbacks_may_await_calls_and_drain_without_deadlock(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path) as client:
            form, echo = await client.open("email"), await client.open("email")
            seen: List[str] = []

            async def mirror(changes: Changes) -> None:
                await client.drain_callbacks()  # from the callback task: returns at once
                await echo.set("email", form.state["email"])
                seen.append(changes["validationMessage"])

            form.on_change(mirror)
            await form.set("email", "a@b.co")
            await asyncio.wait_for(client.drain_callbacks(), 10)
            assert seen == ["Email is valid"] and echo.state["isValid"] is True
    run(main())
