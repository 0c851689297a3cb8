"""`cause` through the shared daemon (`appd --listen --deterministic`): a change carries the id of
the request whose handling made it, only until that request is answered, and only for its client.
A stream subscribed to at open, a debounce after its setField, and a tab's timer started by a
command each change the model after their request was answered: nobody is told a cause."""
import tempfile
from pathlib import Path

from listening import APPD, Listening


def changes_of(notes, session):
    return [n["params"] for n in notes if n.get("method") == "didChange" and n["params"]["session"] == session]


def test_changes_after_the_answer_carry_no_cause_for_any_client():
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder) / "run"
        directory.mkdir(mode=0o700)
        daemon = Listening(directory, "--deterministic", daemon=APPD)
        a, b = daemon.client(), daemon.client()
        try:
            feed = a.result("session/open", type="quoteFeed", key="tea")["session"]
            b.result("session/open", type="quoteFeed", key="tea")
            # A's refresh writes in a task of its own before it answers: A is told its cause, B none.
            answer = a.request("invoke", session=feed, command="refresh")
            assert answer["result"] == {"result": None}
            told_a = changes_of(a.take_notes(), feed)
            assert told_a and all(c.get("cause") == answer["id"] for c in told_a), told_a
            b.result("session/state", session=feed)
            assert all("cause" not in c for c in changes_of(b.take_notes(), feed))
            # The stream ticks after session/open was answered: no cause, for either client.
            a.result("clock/advance", ms=1000)
            b.result("session/state", session=feed)
            for client in (a, b):
                ticks = changes_of(client.take_notes(), feed)
                assert [t["changes"].get("price") for t in ticks] == [101], ticks
                assert all("cause" not in t for t in ticks), ticks
            # A debounce fires after its setField was answered.
            search = a.result("session/open", type="search", key="films")["session"]
            b.result("session/open", type="search", key="films")
            a.result("setField", session=search, field="query", value="ter")
            b.result("session/state", session=search)
            a.take_notes(), b.take_notes()  # the write's own revision (A: its cause; B: the value)
            a.result("clock/advance", ms=300)
            b.result("session/state", session=search)
            for client in (a, b):
                fired = changes_of(client.take_notes(), search)
                assert any(c["changes"].get("state") == {"case": "loading"} for c in fired), fired
                assert all("cause" not in c for c in fired), fired
            # A tab's timer, started by B's command: B is told the command's own change with its
            # cause; the ticks, after the answer, carry none for anyone.
            app = b.result("session/open", type="tabbedApp", key="app")
            clock_tab = app["state"]["clockTab"]["session"]
            a.result("session/open", type="tabbedApp", key="app")
            start = b.request("invoke", session=clock_tab, command="start")
            assert [c.get("cause") for c in changes_of(b.take_notes(), clock_tab)] == [start["id"]]
            a.result("clock/advance", ms=1000)
            b.result("session/state", session=clock_tab)
            for client in (a, b):
                ticks = [c for c in changes_of(client.take_notes(), clock_tab) if "ticks" in c["changes"]]
                assert [t["changes"]["ticks"] for t in ticks] == [1], ticks
                assert all("cause" not in t for t in ticks), ticks
        finally:
            a.close()
            b.close()
            daemon.stop()
