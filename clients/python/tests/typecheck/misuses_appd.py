"""A script that misuses the typed sessions generated for appd's view models: `mypy --strict` must
reject it, with exactly the errors marked on their lines (tests/test_codegen.py generates
``appd_types`` and checks the lines and the error codes)."""
from __future__ import annotations

from typing import List

from appd_types import (
    CounterRowViewModelSession, Film, OrderSession, SearchSession, TabbedAppSession, TodoListSession,
    ValueCatalogueSession,
)
from bindery import Client


def misuse(client: Client) -> None:
    catalogue = ValueCatalogueSession.open(client)

    # Native values, not their wire forms.
    catalogue.set_date("2026-01-01T09:30:00Z")  # error: [arg-type]
    catalogue.set_price(0.3)  # error: [arg-type]
    when: str = catalogue.state["date"]  # error: [assignment]
    ident: str = catalogue.state["id"]  # error: [assignment]
    tags: List[str] = catalogue.state["tags"]  # error: [assignment]
    catalogue.set_scores({"a": "1"})  # error: [dict-item]

    # Unions: a case that does not exist, a member of another case.
    catalogue.set_shape({"case": "circl", "radius": 1.0})  # error: [typeddict-item]
    catalogue.set_shape({"case": "circle", "_0": 1.0})  # error: [arg-type]
    shape = catalogue.state["shape"]  # not narrowed: a ShapeRectangle or a ShapePoint has no radius
    radius = shape["radius"]  # error: [typeddict-item]  # error: [typeddict-item]
    search = SearchSession.open(client)
    state = search.state["state"]
    if state["case"] == "failed":
        films: List[Film] = state["_0"]  # error: [assignment]

    # Rows: the right type, whole.
    todo = TodoListSession.open(client)
    todo.toggle({"title": "Buy milk"})  # error: [typeddict-item]
    order = OrderSession.open(client)
    order.add(order.state["lines"][0])  # error: [arg-type]
    total: float = order.state["total"]  # error: [assignment]

    # Child view models: typed sessions, not their {"session": id}; a detail may be None.
    app = TabbedAppSession.open(client)
    app.counters_tab().set_total(3)  # error: [attr-defined]
    app.detail().increment()  # error: [union-attr]
    rows: List[CounterRowViewModelSession] = app.counters_tab()  # error: [assignment]
    app.counters_tab().rows()[0].set_title(1)  # error: [arg-type]
    tab: int = app.state["countersTab"]  # error: [assignment]
    print(when, ident, tags, radius, films, total, rows, tab)
