"""on_change callbacks: in order, on their own thread, never blocking the reader."""
from __future__ import annotations

import threading
from typing import List

from bindery import Changes, Client


def test_a_blocked_callback_neither_blocks_calls_nor_loses_or_reorders_changes(client: Client) -> None:
    form = client.open("email")
    gate = threading.Event()
    seen: List[Changes] = []
    threads: List[str] = []

    def slow(changes: Changes) -> None:
        threads.append(threading.current_thread().name)
        gate.wait(20)  # held until every set below has returned
        seen.append(changes)

    form.on_change(slow)
    texts = ["a@b.co", "a", "a@b.co", "a", "b@c.de", "b", "c@d.ef", "c"]
    for text in texts:
        form.set("email", text, timeout=10)  # returns although the callback is stuck
    assert form.revision == len(texts)
    gate.set()
    assert client.drain_callbacks(20)
    assert [c.revision for c in seen] == list(range(1, len(texts) + 1))
    assert [c["isValid"] for c in seen] == [True, False] * 4
    assert all(c.cause is not None and c.session == form.id for c in seen)
    assert set(threads) == {"bindery-callbacks"}


def test_callbacks_across_sessions_keep_arrival_order(client: Client) -> None:
    order: List[str] = []
    a, b = client.open("email"), client.open("email")
    a.on_change(lambda c: order.append("a%d" % c.revision))
    b.on_change(lambda c: order.append("b%d" % c.revision))
    a.set("email", "a@b.co")
    b.set("email", "a@b.co")
    a.set("email", "x")
    assert client.drain_callbacks(10)
    assert order == ["a1", "b1", "a2"]


def test_a_raising_callback_does_not_stop_the_others_and_removal_works(client: Client) -> None:
    form = client.open("email")
    seen: List[int] = []

    def broken(changes: Changes) -> None:
        raise RuntimeError("callback bug")

    form.on_change(broken)
    remove = form.on_change(lambda c: seen.append(c.revision))
    form.set("email", "a@b.co")
    assert client.drain_callbacks(10)
    remove()
    form.set("email", "x")
    assert client.drain_callbacks(10)
    assert seen == [1]


def test_state_is_current_when_a_callback_runs(client: Client) -> None:
    form = client.open("email")
    snapshots: List[dict] = []
    form.on_change(lambda c: snapshots.append(form.snapshot()))
    form.set("email", "a@b.co")
    assert client.drain_callbacks(10)
    assert snapshots[0]["isValid"] is True


def test_pending_callbacks_run_before_close_returns(daemon_path: str) -> None:
    seen: List[int] = []
    with Client(daemon_path) as client:
        form = client.open("email")
        form.on_change(lambda c: seen.append(c.revision))
        form.set("email", "a@b.co")
    assert seen == [1]
