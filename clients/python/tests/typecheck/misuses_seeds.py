"""A script that misuses the generated typed sessions: `mypy --strict` must reject it, with exactly
the errors marked on their lines (tests/test_codegen.py checks the lines and the error codes)."""
from __future__ import annotations

from bindery import Client
from bindery.seeds import AddMovieSession, ElementSession, LoginChanges, LoginSession, Movie


def misuse(client: Client) -> None:
    login = LoginSession.open(client)

    # Wrong field names.
    login.set_first_nam("Ada")  # error: [attr-defined]
    typo = login.state["firstNam"]  # error: [typeddict-item]

    # Wrong value types.
    login.set_first_name(42)  # error: [arg-type]
    login.set_last_name(None)  # error: [arg-type]
    add = AddMovieSession.open(client)
    add.set_rating("great")  # error: [arg-type]
    count: int = add.save()  # error: [assignment]
    movie: Movie = add.save()
    stars: int = movie["givenRating"]  # error: [assignment]

    def on_change(changes: LoginChanges) -> None:
        first: int = changes["firstName"]  # error: [assignment]

    login.on_change(on_change)
    login.on_change(lambda changes: changes["firstNme"])  # error: [typeddict-item]

    # History: results and snapshots are typed too.
    revision: str = login.undo().revision  # error: [assignment]
    LoginSession.open(client, restore="snapshot")  # error: [arg-type]

    # Members a type does not have: element has only outputs.
    helium = ElementSession.open(client, {"symbol": "He"})
    helium.set_name("Deuterium")  # error: [attr-defined]
    print(typo, count, stars, revision)
