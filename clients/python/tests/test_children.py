"""Child view models (protocol.md, "Child view models") against the real appd's ``tabbedApp``: each
child (a tab, a counter row, the detail) is a Session of its own, made from the ``children`` of a
message, kept current by its own didChanges, reachable from its parent (``child``, ``rows``,
``children``), and detached when the parent no longer shows it; a resync rebuilds the tree. The
same through asyncio."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import pytest

from bindery import AsyncClient, AsyncSession, Client, InvalidParams, Session, UnknownSession
from helpers import run


def counts(counters: Any) -> List[Tuple[int, int]]:
    """(id, count) of each row, in the order the rows are shown."""
    return [(row.state["id"], row.state["count"]) for row in counters.rows("rows")]


def test_tabs_rows_and_detached_rows(appd: Client) -> None:
    app = appd.open("tabbedApp")
    counters = app.child("countersTab")
    assert isinstance(counters, Session) and counters.type == "CountersTabViewModel"
    assert counters.parent is app and app.parent is None
    assert app.child("countersTab") is counters  # the same object every time
    assert [c.type for c in app.children()] == ["ClockTabViewModel", "ProfileTabViewModel", "CountersTabViewModel"]
    assert app.child("detail") is None and app.children("detail") == []
    assert counters.fields == ["newTitle"] and counters.commands == ["add", "remove", "moveToTop"]

    seen: List[Dict[str, Any]] = []
    # What each change set says, not the live state: the callback thread may run it after later changes.
    counters.on_change(lambda changes: seen.append({"rows": [row["session"] for row in changes["rows"]]}
                                                   if "rows" in changes else {}))
    for _ in range(3):
        counters.invoke("add")
    first, second, third = counters.rows("rows")
    assert counts(counters) == [(1, 0), (2, 0), (3, 0)] and first.parent is counters
    assert counters.children("rows") == [first, second, third]

    second.invoke("increment")  # the row's own didChange; the tab's total follows
    assert second.state["count"] == 1 and second.revision == 1 and counters.state["total"] == 1
    second.set("title", "Cups")
    assert second.state["summary"] == "Cups: 1"
    assert second.undo().can_redo and second.state["title"] == "Counter 2"

    counters.invoke("moveToTop", 2)
    assert counters.rows("rows") == [second, first, third]  # each row keeps its session
    counters.invoke("remove", 1)
    assert counts(counters) == [(2, 1), (3, 0)] and counters.state["total"] == 1
    assert first.detached and first.closed and not second.detached
    with pytest.raises(UnknownSession, match="detached: its parent, session %d, no longer shows it" % counters.id):
        first.invoke("increment")
    with pytest.raises(UnknownSession):
        first.set("title", "x")
    assert first not in appd.sessions and second in appd.sessions
    appd.drain_callbacks()
    assert {"rows": [second.id, first.id, third.id]} in seen and seen[-1] == {"rows": [second.id, third.id]}

    with pytest.raises(TypeError, match="holds rows of child view models: use rows"):
        counters.child("rows")
    with pytest.raises(TypeError, match="holds one child view model, not rows: use child"):
        app.rows("countersTab")
    with pytest.raises(TypeError, match="'total' of CountersTabViewModel is not a child view model"):
        counters.rows("total")
    with pytest.raises(InvalidParams, match="it closes with its parent"):
        counters.close()


def test_detail_comes_and_goes_and_the_daemon_refuses_a_detached_row(appd: Client) -> None:
    app = appd.open("tabbedApp")
    counters = app.child("countersTab")
    assert counters is not None
    counters.invoke("add")
    [row] = counters.rows("rows")
    app.invoke("showDetail", 1)
    detail = app.child("detail")
    assert detail is not None and detail is not row and detail.type == "CounterRowViewModel"  # one per member
    detail.invoke("increment")
    assert detail.state["count"] == 1
    assert row.wait_until(lambda state: state["count"] == 1, timeout=5)  # the same object, told too
    app.invoke("hideDetail")
    assert app.child("detail") is None and detail.detached and not row.detached
    # Past the local check, the daemon answers -32011 for the detached session.
    with pytest.raises(UnknownSession) as refused:
        appd.request("invoke", {"session": detail.id, "command": "increment"})
    assert refused.value.code == -32011 and not refused.value.local
    app.close()
    assert counters.closed and row.closed and appd.sessions == []  # closing the parent closes its children


def test_a_resync_rebuilds_the_children(appd: Client) -> None:
    app = appd.open("tabbedApp")
    counters = app.child("countersTab")
    assert counters is not None
    counters.invoke("add")
    [kept] = counters.rows("rows")
    # Lose the didChange that shows the next row: the one after it has a gap, and the client resyncs.
    deliver = appd.connection.on_did_change
    dropped: List[Dict[str, Any]] = []

    def lossy(params: Dict[str, Any]) -> None:
        if params.get("children") and not dropped:
            dropped.append(params)
            return
        assert deliver is not None
        deliver(params)

    appd.connection.on_did_change = lossy
    counters.invoke("add")
    appd.connection.on_did_change = deliver
    assert dropped and len(counters.state["rows"]) == 1
    counters.invoke("remove", 1)  # revision 3 after 1: a gap
    counters.wait_until(lambda state: state["rows"] == [{"session": kept.id + 1}], timeout=5)  # resynced
    [added] = counters.rows("rows")
    assert added.state["id"] == 2 and added.parent is counters and kept.detached

    # refresh() of the root re-reads every child; a child the daemon no longer has is detached.
    stale = appd._new_session(999, "CounterRowViewModel", None, {}, 0)
    appd._sessions[999] = stale
    stale._held.parent = counters._held
    added.state["count"] = 42
    app.refresh()
    assert added.state["count"] == 0 and stale.detached and app.child("countersTab") is counters


def test_children_through_asyncio(appd_path: str) -> None:
    async def scenario() -> None:
        async with AsyncClient(appd_path, ["--deterministic"], timeout=20) as client:
            app = await client.open("tabbedApp")
            counters = app.child("countersTab")
            assert isinstance(counters, AsyncSession)
            stream = counters.changes()
            for _ in range(3):
                await counters.invoke("add")
            rows = counters.rows("rows")
            await rows[1].invoke("increment")
            await counters.invoke("moveToTop", 2)
            await counters.invoke("remove", 3)
            assert counts(counters) == [(2, 1), (1, 0)] and rows[2].detached
            with pytest.raises(UnknownSession, match="detached"):
                await rows[2].invoke("increment")
            ended = rows[2].changes()
            assert [c async for c in ended] == []  # a detached child's stream ends
            assert (await stream.__anext__())["rows"] == [{"session": rows[0].id}]
            await app.invoke("showDetail", 2)
            detail = app.child("detail")
            assert detail is not None and detail.state["count"] == 1
            await app.invoke("hideDetail")
            assert app.child("detail") is None and detail.detached
            await app.refresh()
            assert [r.id for r in counters.rows("rows")] == [rows[1].id, rows[0].id]
    run(scenario())
