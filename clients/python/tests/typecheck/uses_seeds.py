"""A script using the generated typed sessions (bindery.seeds): `mypy --strict` must accept it, and
it runs against the real daemon (tests/test_codegen.py does both). Every seed type, sync and async."""
from __future__ import annotations

import asyncio
from typing import List, Optional

from bindery import AsyncClient, Client, History, SchemaMismatch, Snapshot, SnapshotMismatch
from bindery.seeds import (
    AddMovieSession, AsyncAddMovieSession, AsyncLoginSession, AsyncMovieListSession, BottomBarSession,
    ElementSession, EmailChanges, EmailSession, LoginSession, Movie, MovieListChanges, MovieListSession,
    PackageContent, PackageSession, Rating, SurveySession, User,
)


def sync_tour(daemon: Optional[str] = None) -> List[str]:
    """Drives every seed type through its generated class; returns what it saw."""
    seen: List[str] = []
    with Client(daemon, ["--deterministic"]) as client:
        form = EmailSession.open(client)

        def on_email_change(changes: EmailChanges) -> None:
            if "validationMessage" in changes:
                seen.append(changes["validationMessage"])

        form.on_change(on_email_change)
        form.set_email("a@b.co")
        valid: bool = form.state["isValid"]

        survey = SurveySession.open(client)
        survey.set_name("Ada Lovelace")
        survey.set_years_of_experience(3)
        survey.set_approx_salary(None)
        survey.set_is_current_employer(True)
        experience: str = survey.state["experienceString"]
        undone: History = survey.undo()
        can_redo: bool = undone.can_redo
        survey.redo()
        kept: Snapshot = survey.take_snapshot()
        copy = SurveySession.open(client, restore=kept)
        assert copy.state["name"] == "Ada Lovelace" and can_redo and not copy.restored
        try:
            SurveySession.open(client, restore={"type": "survey", "fields": {"nickname": "Ada"}})
        except SnapshotMismatch as error:
            seen.append(str(error.data["reason"]))

        with LoginSession.open(client) as login:
            login.set_first_name("Ada")
            login.set_last_name("Lovelace")
            assert login.state["login.enabled"]
        # the login itself waits 1.5 s on the daemon's clock: async_tour advances it

        parcel = PackageSession.open(client)
        parcel.set_street("37 Christie St")
        parcel.add_random_item()
        contents: List[PackageContent] = parcel.state["contents"]
        weight: int = contents[0]["weight"]

        helium = ElementSession.open(client, {"symbol": "He"})
        atomic_weight: float = helium.state["atomicWeight"]

        movies = MovieListSession.open(client)
        movies.set_is_presenting_add_movie(True)
        add = AddMovieSession.open(client)
        add.set_title("Alien")
        rating: Rating = "excellent"
        add.set_rating(rating)
        saved: Movie = add.save()
        titles = [movie["fullTitle"] for movie in movies.state["movies"]]

        bar = BottomBarSession.open(client, key="bar")
        bar.on_change(lambda changes: seen.append(changes.get("text", "")))
        client.advance_clock(2000)
        client.drain_callbacks()

        seen += [str(valid), experience, str(weight > 0), str(atomic_weight), saved["givenRating"], *titles]
    return seen


async def async_tour(daemon: Optional[str] = None) -> User:
    """Logs in on the virtual clock, and watches a list while a movie is saved."""
    async with AsyncClient(daemon, ["--deterministic"]) as client:
        login = await AsyncLoginSession.open(client)
        await login.set_first_name("Ada")
        await login.set_last_name("Lovelace")
        call = asyncio.ensure_future(login.login())
        await login.wait_until(lambda state: state["login.running"])
        await client.advance_clock(1500)
        user = await call

        movies = await AsyncMovieListSession.open(client)
        changes = movies.changes()
        add = await AsyncAddMovieSession.open(client)
        await add.set_title("Heat")
        await add.save()
        first: MovieListChanges = await changes.__anext__()
        assert [movie["fullTitle"] for movie in first.get("movies", [])] == ["Heat"]

        try:
            await AsyncLoginSession.open(client, key=user["firstName"], timeout=5)
        except SchemaMismatch as error:  # only when the daemon's `login` has changed
            print(error)
        return user


if __name__ == "__main__":
    print(sync_tour())
    print(asyncio.run(async_tour()))
