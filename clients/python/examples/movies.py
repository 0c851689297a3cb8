#!/usr/bin/env python3
"""The movie app of seed 004: a movie saved in one session reaches every movie list, and a bottom
bar ticks on a timer. Uses asyncio, and a --deterministic daemon so the timer runs on demand.

    python3 clients/python/examples/movies.py
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))  # run without install

from bindery import AsyncClient, WrongValueType  # noqa: E402


async def main() -> None:
    async with AsyncClient(args=["--deterministic"]) as client:
        home, sidebar = await client.open("movieList"), await client.open("movieList", observe=["movies"])

        async def show(name: str, session) -> None:  # type: ignore[no-untyped-def]
            async for changes in session.changes():
                print("    %s now lists: %s" % (name, ", ".join(m["fullTitle"] for m in changes["movies"])))

        watchers = [asyncio.ensure_future(show("home", home)), asyncio.ensure_future(show("sidebar", sidebar))]

        for title, rating in [("Alien", "excellent"), ("Heat", "good"), ("Cats", "terrible")]:
            form = await client.open("addMovie")
            await form.set("title", title)
            try:
                await form.set("rating", "great")
            except WrongValueType as error:
                print("rating refused: %s" % error.data["expected"])
            await form.set("rating", rating)
            movie = await form.invoke("save")
            print("saved %s (id %s) — both lists were updated before save returned: %s"
                  % (movie["fullTitle"], movie["id"], len(sidebar.state["movies"]) == int(movie["id"])))
            await form.close()

        bar = await client.open("bottomBar")
        for _ in range(3):
            now = await client.advance_clock(2000)  # the bar's 2-second timer fires
            print("t=%5d ms  bottom bar: %s" % (now, bar.state["text"]))

        await asyncio.sleep(0)
        for watcher in watchers:
            watcher.cancel()


if __name__ == "__main__":
    asyncio.run(main())
