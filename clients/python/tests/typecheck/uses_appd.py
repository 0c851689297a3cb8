"""A script using typed sessions generated for appd's view models (Examples/AppViewModels):
tests/test_codegen.py generates ``appd_types`` from the real appd into a temporary folder, then
`mypy --strict` must accept this script and it must run against appd. Dates, UUIDs, decimals,
bytes, sets, dictionaries and unions, as native values, sync and asyncio."""
from __future__ import annotations

import asyncio
import datetime
import decimal
import os
import sys
import uuid
from typing import Dict, List, Optional, Set

from appd_types import (
    Address, AsyncCounterRowViewModelSession, AsyncTabbedAppSession, AsyncValueCatalogueSession,
    CounterRowViewModelSession, CountersTabViewModelSession, FavoritesSession, Film, LoadState, OrderLine,
    OrderSession, Pair, Product, SearchSession, Shape, TabbedAppSession, Tag, TodoItem, TodoListSession,
    ValueCatalogueChanges, ValueCatalogueSession,
)
from bindery import AsyncClient, Client
from bindery.typed import ChildRef

UTC = datetime.timezone.utc


def sync_tour(daemon: str) -> List[str]:
    """Drives appd's types through their generated classes; returns what it saw."""
    seen: List[str] = []
    with Client(daemon, ["--deterministic"]) as client:
        catalogue = ValueCatalogueSession.open(client)
        when: datetime.datetime = catalogue.state["date"]
        price: decimal.Decimal = catalogue.state["price"]
        ident: uuid.UUID = catalogue.state["id"]
        raw: bytes = catalogue.state["bytes"]
        selection: Set[int] = catalogue.state["selection"]
        tags: Set[str] = catalogue.state["tags"]
        scores: Dict[str, int] = catalogue.state["scores"]
        labels: List[Tag] = catalogue.state["labels"]
        address: Address = catalogue.state["address"]
        pair: Pair = catalogue.state["pair"]
        error: Optional[str] = catalogue.state["lastError"]
        shape: Shape = catalogue.state["shape"]
        if shape["case"] == "circle":  # narrowed by its case: a ShapeCircle
            seen.append("circle %s" % shape["radius"])
        seen.append("%s %s %s %r %s %s" % (when.isoformat(), price, ident, raw, sorted(selection), sorted(tags)))
        seen.append("%s %s %s %s %s" % (scores, labels[0]["colour"], address["city"], pair["width"], error))

        def on_change(changes: ValueCatalogueChanges) -> None:
            if "price" in changes:
                total: decimal.Decimal = changes["price"]
                seen.append("price %s" % total)

        catalogue.on_change(on_change)
        catalogue.set_date(datetime.datetime(2026, 1, 1, 9, 30, tzinfo=UTC))
        catalogue.set_price(decimal.Decimal("0.1") + decimal.Decimal("0.2"))
        catalogue.set_id(uuid.UUID(int=1))
        catalogue.set_bytes(b"\x00\x01")
        catalogue.set_selection({1, 2})
        catalogue.set_tags({"x"})
        catalogue.set_scores({"a": 1})
        catalogue.set_shape({"case": "rectangle", "_0": 2.0, "_1": 3.0})
        catalogue.set_labels([{"name": "home", "colour": "green"}])
        catalogue.set_context({"1": ["x"]})
        catalogue.reset()
        client.drain_callbacks()
        seen.append("%s %s" % (catalogue.state["date"].isoformat(), catalogue.state["shape"]["case"]))

        todo = TodoListSession.open(client)
        todo.set_new_title("Buy milk")
        todo.set_new_due(datetime.datetime(2026, 1, 1, 9, 30, tzinfo=UTC))
        todo.add()
        row: TodoItem = todo.state["items"][0]
        todo.toggle(row)  # the row as shown names it
        done: bool = todo.state["items"][0]["isDone"]
        due: Optional[datetime.datetime] = todo.state["items"][0].get("due")
        seen.append("%s %s %s" % (row["title"], done, due and due.isoformat()))

        order = OrderSession.open(client)
        cup: Product = order.state["catalog"][1]
        pot: Product = order.state["catalog"][2]
        order.add(cup)
        order.add(pot)
        total: decimal.Decimal = order.state["total"]
        line: OrderLine = order.state["lines"][0]
        order.remove(line)
        placed: Optional[uuid.UUID] = order.state["placedOrderID"]
        seen.append("total %s %s %s" % (total, total == decimal.Decimal("0.3"), placed))


        favorites = FavoritesSession.open(client)
        favorites.set_favorite_ids({1})
        favorites.toggle_favorite(favorites.state["shown"][1])
        ids: Set[int] = favorites.state["favoriteIDs"]
        seen.append("favorites %s" % sorted(ids))

        app = TabbedAppSession.open(client)  # child view models: a typed session per child
        counters: CountersTabViewModelSession = app.counters_tab()
        for _ in range(3):
            counters.add()
        rows: List[CounterRowViewModelSession] = counters.rows()
        rows[1].increment()
        counters.move_to_top(rows[1].state["id"])
        counters.remove(rows[0].state["id"])
        count: int = counters.rows()[0].state["count"]
        ref: ChildRef = app.state["countersTab"]
        app.profile_tab().set_name("Ada")
        app.show_detail(2)
        detail: Optional[CounterRowViewModelSession] = app.detail()
        summary = detail.state["summary"] if detail is not None else "none"
        seen.append("rows %s %d %s %s %s" % ([r.state["id"] for r in counters.rows()], count, ref == {"session": counters.id},
                                            summary, app.profile_tab().state["canSave"]))

    with Client(daemon) as live:  # the search's debounce and its fake service, on the real clock
        search = SearchSession.open(live)
        search.set_query("the")
        search.wait_until(lambda state: state["state"]["case"] == "loaded", timeout=10)
        state: LoadState = search.state["state"]
        if state["case"] == "loaded":  # narrowed by its case: a LoadStateLoaded
            films: List[Film] = state["_0"]
            seen.append("films %s" % [film["title"] for film in films])
    return seen


async def async_tour(daemon: str) -> List[str]:
    seen: List[str] = []
    async with AsyncClient(daemon, ["--deterministic"]) as client:
        catalogue = await AsyncValueCatalogueSession.open(client)
        changes = catalogue.changes()
        await catalogue.set_price(decimal.Decimal("1.10"))
        await catalogue.reset()
        change: ValueCatalogueChanges = await changes.__anext__()
        price: decimal.Decimal = change["price"]
        seen.append("async price %s" % price)
        state = await catalogue.wait_until(lambda state: state["price"] == 0)
        seen.append("async %s" % state["shape"]["case"])

        app = await AsyncTabbedAppSession.open(client)
        await app.counters_tab().add()
        row: AsyncCounterRowViewModelSession = app.counters_tab().rows()[0]
        await row.increment()
        await app.clock_tab().start()
        seen.append("async row %d %s" % (row.state["count"], app.clock_tab().state["isRunning"]))
    return seen


if __name__ == "__main__":
    appd = os.environ.get("APPD")
    if not appd:
        sys.exit("set APPD to appd's path (swift build --product appd; .build/debug/appd)")
    for line in sync_tour(appd) + asyncio.run(async_tour(appd)):
        print(line)
