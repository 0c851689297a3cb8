"""The asyncio client: the same behaviour with await, plus changes() and async callbacks."""
from __future__ import annotations

import asyncio
from typing import Any, List

import pytest

from bindery import (
    AsyncClient, Changes, ClientClosed, CommandFailed, DaemonExited, OpenFailed, RequestCancelled,
    RequestTimeout, UnknownCommand, UnknownField, WaitTimeout,
)
from helpers import run

USER = {"firstName": "Ada", "lastName": "Lovelace", "authToken": "123adasdsadasdasdasdd"}


def test_email_and_changes_iterator(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic"]) as client:
            form = await client.open("email")
            changes = form.changes()  # receives everything from now on, in order
            for text in ["a@b.co", "a", "a@b.co"]:
                await form.set("email", text)
            assert form.state["email"] == "a@b.co" and form.state["isValid"]
            got = [await changes.__anext__() for _ in range(3)]
            assert [c.revision for c in got] == [1, 2, 3]
            assert [c["isValid"] for c in got] == [True, False, True]
            await form.close()
            assert [c async for c in changes] == []  # ends when the session closes
    run(main())


def test_login_with_gather_and_the_virtual_clock(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic"]) as client:
            login = await client.open("login")
            await asyncio.gather(login.set("firstName", "Ada"), login.set("lastName", "Lovelace"))  # pipelined
            assert login.state["login.enabled"]
            call = asyncio.ensure_future(login.invoke("login"))
            await login.wait_until(lambda s: s["login.running"], timeout=10)
            assert await client.advance_clock(1500) == 1500
            assert await call == USER
            assert login.state["loggedInUser"] == USER

            await login.set("firstName", "Mallory")
            call = asyncio.ensure_future(login.invoke("login"))
            await login.wait_until(lambda s: s["login.running"], timeout=10)
            await client.advance_clock(1500)
            with pytest.raises(CommandFailed):
                await call
            assert login.state["errorMessage"] == "The user API rejected Mallory Lovelace"
    run(main())


def test_fail_fast_and_daemon_errors(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path) as client:
            form = await client.open("email")
            with pytest.raises(UnknownField) as field:
                await form.set("emial", "x")
            assert field.value.local
            with pytest.raises(UnknownCommand):
                await form.invoke("submit")
            with pytest.raises(OpenFailed):
                await client.open("element", {"symbol": "Xx"})
            element = await client.open("element", {"symbol": "Ne"})
            assert element.state["weightDescription"] == "Weight: 20.18"
            assert len(await client.describe()) == 8
    run(main())


def test_movies_fan_out_with_async_callbacks(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic"]) as client:
            lists = [await client.open("movieList"), await client.open("movieList", observe=["movies"])]
            seen: List[Any] = []

            async def record(changes: Changes) -> None:
                await asyncio.sleep(0)
                seen.append((changes.session, [m["fullTitle"] for m in changes["movies"]]))

            for movie_list in lists:
                movie_list.on_change(record)
            add = await client.open("addMovie")
            await add.set("title", "Alien")
            assert (await add.invoke("save"))["fullTitle"] == "Alien"
            assert all(m.state["movies"][0]["fullTitle"] == "Alien" for m in lists)
            await client.drain_callbacks()
            assert seen == [(lists[0].id, ["Alien"]), (lists[1].id, ["Alien"])]
    run(main())


def test_bottom_bar_on_both_clocks(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic", "--seed", "7"]) as client:
            bar = await client.open("bottomBar")
            await client.advance_clock(2000)
            assert bar.state["text"] == "Random number: 38"
        async with AsyncClient(daemon_path) as client:
            bar = await client.open("bottomBar")
            ticks = bar.changes()
            first = await asyncio.wait_for(ticks.__anext__(), 8)  # one tick: ~2 s
            assert first["text"].startswith("Random number: ") and first.cause is None
    run(main())


def test_timeout_and_task_cancellation_cancel_the_command(daemon_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(daemon_path, ["--deterministic"]) as client:
            login = await client.open("login")
            await login.set("firstName", "Ada")
            await login.set("lastName", "Lovelace")
            with pytest.raises(RequestTimeout) as caught:
                await login.invoke("login", timeout=0.3)
            assert isinstance(caught.value.cancellation, RequestCancelled)
            assert login.state["login.running"] is False

            task = asyncio.ensure_future(login.invoke("login"))
            await login.wait_until(lambda s: s["login.running"], timeout=10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await login.wait_until(lambda s: not s["login.running"], timeout=10)
            with pytest.raises(WaitTimeout):
                await login.wait_until(lambda s: s["loggedInUser"] is not None, timeout=0.2)
    run(main())


def test_daemon_death_fails_calls_and_change_streams(noisy_daemon: str) -> None:
    async def main() -> None:
        client = await AsyncClient.connect(noisy_daemon, ["--deterministic"])
        try:
            login = await client.open("login")
            await login.set("firstName", "Ada")
            await login.set("lastName", "Lovelace")
            stream = login.changes()
            call = asyncio.ensure_future(login.invoke("login"))
            await login.wait_until(lambda s: s["login.running"], timeout=10)
            client.process.kill()
            with pytest.raises(DaemonExited) as caught:
                await call
            assert caught.value.returncode == -9 and caught.value.stderr[-1] == "noisy line 25"
            assert (await stream.__anext__())["login.running"] is True  # what came before the death
            with pytest.raises(DaemonExited):
                await stream.__anext__()
            with pytest.raises(DaemonExited):
                await login.set("firstName", "x")
        finally:
            assert await client.close() == -9
    run(main())


def test_closed_client(daemon_path: str) -> None:
    async def main() -> None:
        client = AsyncClient(daemon_path)
        with pytest.raises(ClientClosed):
            await client.open("email")  # not started
        await client.start()
        form = await client.open("email")
        assert await client.close() == 0
        assert form.closed
        with pytest.raises(ClientClosed):
            await form.set("email", "x")
    run(main())
