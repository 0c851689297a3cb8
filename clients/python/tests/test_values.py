"""Native values (bindery.values): every kind of value protocol.md's "Value types" lists, encoded
from and decoded to datetime, uuid.UUID, decimal.Decimal, bytes and sets; alone, then through the
real appd (Examples/AppViewModels): every valueCatalogue member round-tripped (native in, the same
native out) sync and asyncio, a to-do row toggled by passing the row shown, the order's Decimal
totals exact, a union with a payload, a set of ids and a dictionary of errors."""
from __future__ import annotations

import datetime
import decimal
import enum
import uuid
from decimal import Decimal
from typing import Any, Dict

import pytest

from bindery import AsyncClient, Client, InvalidParams, WrongValueType
from bindery.values import converts, decode, encode, format_datetime, parse_datetime
from helpers import run

UTC = datetime.timezone.utc
DATE = {"type": "string", "format": "date-time", "nullable": False}
UUID_T = {"type": "string", "format": "uuid", "nullable": False}
DECIMAL = {"type": "string", "format": "decimal", "nullable": False}
BYTES = {"type": "string", "format": "byte", "nullable": False}


def member(name: str, t: Dict[str, Any], optional: bool = False) -> Dict[str, Any]:
    return dict(t, name=name, optional=optional)


# Alone: the forms, without a daemon.

def test_dates_are_iso_8601_in_utc_with_milliseconds() -> None:
    paris = datetime.timezone(datetime.timedelta(hours=1))
    assert encode(datetime.datetime(2026, 1, 1, 9, 30, tzinfo=paris)) == "2026-01-01T08:30:00.000Z"
    assert encode(datetime.datetime(2025, 11, 25, 10, 0, 0, 250999, tzinfo=UTC)) == "2025-11-25T10:00:00.250Z"
    assert encode(datetime.date(2026, 3, 1)) == "2026-03-01T00:00:00.000Z"  # a date: midnight UTC
    assert format_datetime(datetime.datetime(99, 1, 2, tzinfo=UTC)) == "0099-01-02T00:00:00.000Z"
    with pytest.raises(InvalidParams, match="naive datetime .* has no time zone"):
        encode(datetime.datetime(2026, 1, 1, 9, 30))
    moment = decode("2025-11-25T10:00:00.250Z", DATE)
    assert moment == datetime.datetime(2025, 11, 25, 10, 0, 0, 250000, tzinfo=UTC) and moment.tzinfo is UTC
    assert parse_datetime("2026-01-01T09:30:00+01:00") == datetime.datetime(2026, 1, 1, 8, 30, tzinfo=UTC)
    assert parse_datetime("2026-01-01T09:30:00.1234567-0230").isoformat() == "2026-01-01T12:00:00.123456+00:00"
    with pytest.raises(ValueError, match="not an ISO 8601"):
        decode("2026-01-01T09:30:00", DATE)  # no offset: not what the daemon sends


def test_uuids_decimals_and_bytes() -> None:
    ident = uuid.UUID("0F8FAD5B-D9CB-469F-A165-70867728950E")
    assert encode(ident) == "0f8fad5b-d9cb-469f-a165-70867728950e"
    assert decode("0f8fad5b-d9cb-469f-a165-70867728950e", UUID_T) == ident
    assert encode(Decimal("0.1") + Decimal("0.2")) == "0.3"
    assert encode(Decimal("1E+2")) == "100" and encode(Decimal("-0.000001")) == "-0.000001"
    assert encode(Decimal("12345678901234567890.123456789")) == "12345678901234567890.123456789"  # no float
    assert encode(10 ** 30, DECIMAL) == "1" + "0" * 30  # an int where a Decimal goes: exact
    assert encode(0.5, DECIMAL) == 0.5  # a float stays a number (the daemon reads its shortest form)
    assert encode(Decimal("2.5"), {"type": "number"}) == 2.5 and encode(Decimal("3"), {"type": "integer"}) == 3
    with pytest.raises(InvalidParams, match="finite"):
        encode(Decimal("NaN"))
    assert decode("999.99", DECIMAL) == Decimal("999.99") and isinstance(decode("0", DECIMAL), Decimal)
    assert decode(0.1, DECIMAL) == Decimal("0.1")  # a number, read by its shortest form
    assert encode(b"\x00\x01\x02\xfa") == "AAEC+g==" and encode(bytearray(b"hi")) == "aGk="
    assert decode("AAEC+g==", BYTES) == b"\x00\x01\x02\xfa"
    with pytest.raises(ValueError, match="not base64"):
        decode("*", BYTES)
    with pytest.raises(ValueError, match="not a decimal"):
        decode("1,5", DECIMAL)


def test_sets_dictionaries_enums_and_what_cannot_be_sent() -> None:
    class Priority(enum.Enum):
        LOW = "low"

    assert encode({"b", "a", "c"}) == ["a", "b", "c"] and encode(frozenset({3, 1, 2})) == [1, 2, 3]
    assert encode({1: [], 2: ["x"]}) == {"1": [], "2": ["x"]}  # a [Int: T]'s keys: decimal strings
    assert encode({ident: 1 for ident in [uuid.UUID(int=1)]}) == {"00000000-0000-0000-0000-000000000001": 1}
    assert encode(Priority.LOW) == "low" and encode((1, "a")) == [1, "a"]
    unique = {"type": "array", "items": {"type": "string"}, "uniqueItems": True}
    assert decode(["a", "b"], unique) == {"a", "b"}
    index_set = {"type": "array", "items": {"type": "integer"}, "uniqueItems": True, "format": "index-set"}
    assert decode([1, 2, 5], index_set) == {1, 2, 5}
    rows = {"type": "array", "uniqueItems": True, "items": {"type": "object", "typeName": "Tag", "members": [
        member("name", {"type": "string"})]}}
    assert decode([{"name": "home"}], rows) == [{"name": "home"}]  # dicts are not hashable: a list
    with pytest.raises(InvalidParams, match="cannot send a object"):
        encode(object())
    with pytest.raises(InvalidParams, match="cannot send a complex"):
        encode({"a": [1j]})


def test_types_are_followed_through_arrays_objects_dictionaries_and_unions() -> None:
    line = {"type": "object", "typeName": "Line", "members": [
        member("price", DECIMAL), member("due", dict(DATE, nullable=True), optional=True), member("note", {"type": "string"})]}
    lines = {"type": "array", "items": line}
    wire = [{"price": "0.1", "due": "2026-01-01T00:00:00.000Z", "note": "a"}, {"price": "2", "note": "b"}]
    native = decode(wire, lines)
    assert native == [{"price": Decimal("0.1"), "due": datetime.datetime(2026, 1, 1, tzinfo=UTC), "note": "a"},
                      {"price": Decimal("2"), "note": "b"}]
    assert encode(native, lines) == wire and encode([{"price": 2, "note": "b"}], lines) == [{"price": "2", "note": "b"}]
    by_day = {"type": "dictionary", "values": {"type": "array", "items": DATE}}
    assert decode({"x": ["2026-01-01T00:00:00.000Z"]}, by_day) == {"x": [datetime.datetime(2026, 1, 1, tzinfo=UTC)]}
    load = {"type": "union", "typeName": "Load", "cases": [
        {"name": "idle", "members": []}, {"name": "paid", "members": [member("_0", DECIMAL), member("at", DATE)]}]}
    paid = decode({"case": "paid", "_0": "1.10", "at": "2026-01-01T00:00:00.000Z"}, load)
    assert paid == {"case": "paid", "_0": Decimal("1.10"), "at": datetime.datetime(2026, 1, 1, tzinfo=UTC)}
    assert encode(paid, load) == {"case": "paid", "_0": "1.10", "at": "2026-01-01T00:00:00.000Z"}
    assert encode({"case": "paid", "_0": 3, "at": "x"}, load)["_0"] == "3"
    assert decode({"case": "idle"}, load) == {"case": "idle"}
    assert decode(None, dict(DATE, nullable=True)) is None
    # A type with nothing to convert hands back the very value: nothing is copied.
    plain = {"type": "array", "items": {"type": "object", "typeName": "T", "members": [member("a", {"type": "string"})]}}
    value = [{"a": "x"}]
    assert not converts(plain) and decode(value, plain) is value
    assert converts(lines) and converts(by_day) and converts(load) and not converts({"type": "any"})


# Through appd.

#: A new value for every writable valueCatalogue member, as a script writes it.
CATALOGUE = {
    "date": datetime.datetime(2026, 1, 1, 9, 30, 0, 125000, tzinfo=UTC),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "link": "https://example.org/x?y=z",
    "price": Decimal("12345678901234567890.123456789"),
    "bytes": b"\x00\xffhello",
    "selection": {3, 7, 9},
    "tags": {"x", "y", "z"},
    "scores": {"q": 10, "r": -1},
    "priority": "high",
    "shape": {"case": "rectangle", "_0": 2.5, "_1": 3.0},
    "address": {"street": "1 Main St", "city": "Springfield"},  # not Decodable: only a value it holds
    # A set of dicts (not hashable) is a list, in the daemon's order: by the elements' JSON.
    "labels": [{"name": "home", "colour": "green"}, {"name": "work", "colour": "blue"}],
    "context": {"3": ["a", "b"]},
}


def test_every_catalogue_member_reads_as_its_native_value(appd: Client) -> None:
    catalogue = appd.open("valueCatalogue")
    assert catalogue.state["date"] == "2025-11-25T10:00:00.250Z"  # state: the JSON as received
    assert catalogue.values() == {
        "date": datetime.datetime(2025, 11, 25, 10, 0, 0, 250000, tzinfo=UTC),
        "id": uuid.UUID("0f8fad5b-d9cb-469f-a165-70867728950e"),
        "link": "https://example.com/a?b=c",
        "price": Decimal("0.3"),
        "bytes": b"\x00\x01\x02\xfa",
        "selection": {1, 2, 5},
        "tags": {"a", "b"},
        "scores": {"a": 1, "b": 2},
        "priority": "normal",
        "shape": {"case": "circle", "radius": 1.5},
        "address": {"street": "1 Main St", "city": "Springfield"},
        "labels": [{"name": "home", "colour": "green"}],
        "context": {"1": [], "2": ["x"]},
        "bigCount": 9000000000, "ratio": 0.5, "window": {"lowerBound": 1, "upperBound": 1000000}, "timeout": 1.5,
        "lastError": "Something went wrong",
        "pair": {"width": 3, "height": 4},
        "reset.enabled": True, "reset.running": False,
    }
    assert catalogue.value("price") == Decimal("0.1") + Decimal("0.2")


def test_every_catalogue_member_round_trips_native_in_native_out(appd: Client) -> None:
    catalogue = appd.open("valueCatalogue")
    for name, value in CATALOGUE.items():
        catalogue.set(name, value)
        assert catalogue.value(name) == value, name  # what the client stored (no echo)...
    catalogue.refresh()
    for name, value in CATALOGUE.items():
        assert catalogue.value(name) == value, name  # ...is what the daemon holds
        assert type(catalogue.value(name)) is type(value) or name == "labels", name
    assert catalogue.value("date").tzinfo is UTC
    # Another offset is the same instant; the daemon keeps milliseconds.
    tokyo = datetime.timezone(datetime.timedelta(hours=9))
    catalogue.set("date", datetime.datetime(2026, 1, 1, 18, 30, 0, 125999, tzinfo=tokyo))
    assert catalogue.refresh()["date"] == "2026-01-01T09:30:00.125Z"
    catalogue.set("selection", [1, 1, 2])  # a list is fine too; duplicates merge
    assert catalogue.refresh()["selection"] == [1, 2] and catalogue.value("selection") == {1, 2}
    with pytest.raises(WrongValueType, match="Address is not Decodable"):
        catalogue.set("address", {"street": "2 Side St", "city": "Shelbyville"})
    catalogue.invoke("reset")
    assert catalogue.value("price") == Decimal(0) and catalogue.value("shape") == {"case": "point"}


def test_every_catalogue_member_round_trips_with_asyncio(appd_path: str) -> None:
    async def main() -> None:
        async with AsyncClient(appd_path, ["--deterministic"]) as client:
            catalogue = await client.open("valueCatalogue")
            changes = catalogue.changes()
            for name, value in CATALOGUE.items():
                await catalogue.set(name, value)
            await catalogue.refresh()
            assert {name: catalogue.value(name) for name in CATALOGUE} == CATALOGUE
            await catalogue.invoke("reset")
            change = catalogue.values(await changes.__anext__())
            assert dict(change) == {"price": Decimal(0), "shape": {"case": "point"}} and change.cause is not None
    run(main())


def test_a_todo_row_is_toggled_by_passing_the_row_shown(appd: Client) -> None:
    todo = appd.open("todoList")
    due = datetime.datetime(2026, 1, 1, 9, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    todo.set("newTitle", "Buy milk")
    todo.set("newDue", due)
    assert todo.value("newDue") == due
    todo.invoke("add")
    todo.set("newTitle", "Post letter")
    todo.invoke("add")
    milk, letter = todo.value("items")
    assert isinstance(milk["id"], uuid.UUID) and milk["due"] == due and milk["due"].tzinfo is UTC
    assert "due" not in letter  # an optional member without a value is left out
    todo.invoke("toggle", milk)  # the native row, encoded back as it was shown
    assert [row["isDone"] for row in todo.value("items")] == [True, False]
    todo.invoke("toggle", todo.state["items"][1])  # the JSON row works the same
    assert todo.value("remainingCount") == 0
    todo.invoke("toggle", dict(milk, title="Buy oat milk"))  # changed since: matched by its id
    assert [row["isDone"] for row in todo.value("items")] == [False, True]
    with pytest.raises(InvalidParams, match="TodoItem"):
        todo.invoke("delete", dict(milk, id=uuid.uuid4()))  # no such row: nothing runs
    todo.invoke("delete", letter)
    assert [row["title"] for row in todo.value("items")] == ["Buy milk"]


def test_order_totals_are_exact_decimals(appd: Client) -> None:
    order = appd.open("order")
    tea, cup, pot, tea_set = order.value("catalog")
    assert cup["price"] == Decimal("0.1") and tea["price"] == Decimal("4.10")
    order.invoke("add", cup)
    order.invoke("add", pot)
    assert order.value("total") == Decimal("0.3") == Decimal("0.1") + Decimal("0.2")
    assert order.state["total"] == "0.3"
    order.invoke("add", cup)
    order.set("couponCode", "SAVE10")
    assert (order.value("subtotal"), order.value("discount"), order.value("total")) == (
        Decimal("0.4"), Decimal("0.04"), Decimal("0.36"))
    lines = order.value("lines")
    assert lines[0] == {"product": cup, "quantity": 2}
    order.invoke("remove", lines[0])
    assert order.value("total") == Decimal("0.18")
    order.invoke("placeOrder")
    assert isinstance(order.value("placedOrderID"), uuid.UUID) and order.value("lines") == []
    order.invoke("placeOrder")
    assert order.value("error") == "Add something to the order first"  # an Error: its message


def test_a_union_with_a_payload_sets_and_dictionaries(appd: Client, appd_path: str) -> None:
    with Client(appd_path, timeout=20) as live:  # the search's debounce and its fake service: the real clock
        search = live.open("search")
        search.set("query", "the")
        search.wait_until(lambda state: state["state"]["case"] == "loaded", timeout=10)
        assert search.value("state") == {"case": "loaded", "_0": [{"id": 3, "title": "The Third Man", "year": 1949}]}
    favorites = appd.open("favorites")
    favorites.set("favoriteIDs", {3, 1})
    assert favorites.state["favoriteIDs"] == [1, 3] and favorites.value("favoriteIDs") == {1, 3}
    pancakes = favorites.value("shown")[0]
    favorites.invoke("toggleFavorite", pancakes)
    assert favorites.value("favoriteIDs") == {3}
    favorites.set("favoriteIDs", set())
    favorites.invoke("validate")
    assert favorites.value("errors") == {"favoriteIDs": "Pick at least one favourite"}
    settings = appd.open("settings")
    assert settings.value("reminderTime") == datetime.datetime(2026, 1, 1, 8, tzinfo=UTC)
    assert settings.value("lastSaved") is None
    settings.invoke("save")
    assert isinstance(settings.value("lastSaved"), datetime.datetime)
    assert settings.value("goal")["unit"]["symbol"] == "km"  # a Codable struct: as it codes itself


def test_display_text_is_the_daemons_and_is_mirrored(appd_path: str) -> None:
    # display=True: the daemon's text of each value that is not a string, a list or a child,
    # kept beside state (protocol.md, "Display and text"); without it, none is sent.
    with Client(appd_path, ["--deterministic"], timeout=20, display=True) as client:
        assert client.capabilities.get("display") is True
        catalogue = client.open("valueCatalogue")
        assert catalogue.display["shape"] == "circle(radius: 1.5)" and catalogue.display["ratio"] == "0.5"
        assert "shape" in catalogue.state and catalogue.state["shape"] == {"case": "circle", "radius": 1.5}
        catalogue.refresh()
        assert catalogue.display["shape"] == "circle(radius: 1.5)"
    with Client(appd_path, ["--deterministic"], timeout=20) as client:
        assert "display" not in client.capabilities and client.open("valueCatalogue").display == {}
