"""Issue 23 end to end against the real appd (Examples/appd, built in Swift 5 mode): changes written
from other threads all reach the client, in order, before the invoke that caused them answers; and
Foundation's Timer fires in the daemon."""
import json
import os
import subprocess
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPD = os.environ.get("APPD", os.path.join(ROOT, ".build", "debug", "appd"))


class Peer:
    """Newline-delimited JSON-RPC over appd's pipes; every message kept in order."""

    def __init__(self):
        self.process = subprocess.Popen([APPD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.messages = []
        self.arrived = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            with self.arrived:
                self.messages.append(json.loads(line))
                self.arrived.notify_all()

    def request(self, method, params, timeout=30):
        self.next_id += 1
        id = self.next_id
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n")
        with self.arrived:
            assert self.arrived.wait_for(lambda: any(m.get("id") == id for m in self.messages), timeout), method
            return next(m for m in self.messages if m.get("id") == id)

    def changes(self, session):
        with self.arrived:
            return [m["params"] for m in self.messages if m.get("method") == "didChange" and m["params"]["session"] == session]

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


def fold(opened, changes):
    state, revision = dict(opened["state"]), opened["revision"]
    for change in changes:
        assert change["revision"] == revision + 1, "revisions go up by one"
        revision = change["revision"]
        state.update(change["changes"])
    return state, revision


def test_thousands_of_writes_from_several_threads_are_none_lost_and_in_order():
    peer = Peer()
    try:
        for run in range(10):
            opened = peer.request("session/open", {"type": "import"})["result"]
            session = opened["session"]
            peer.request("setField", {"session": session, "field": "total", "value": 5000})
            answer = peer.request("invoke", {"session": session, "command": "importInParallel", "args": 4})
            assert answer["result"] == {"result": None}
            index = peer.messages.index(answer)
            told = [m["params"] for m in peer.messages[:index] if m.get("method") == "didChange" and m["params"]["session"] == session]
            state, revision = fold(opened, told)
            state["total"] = 5000  # what this client wrote (never echoed back to it)
            # Every write reached the client before the invoke answered.
            assert state["imported"] == 5000, (run, state)
            assert state == peer.request("session/state", {"session": session})["result"]["state"]
            counts = [c["changes"]["imported"] for c in told if "imported" in c["changes"]]
            assert counts == sorted(counts), "in order"
            assert all(c.get("cause") == answer["id"] for c in told[1:]), "attributed to the invoke"
            # Writes from one detached task, one thread: the last line is the last written.
            answer = peer.request("invoke", {"session": session, "command": "importAll"})
            state, _ = fold(opened, peer.changes(session))
            assert state["lastLine"] == "line 5000" and state["imported"] == 5000
            peer.request("session/close", {"session": session})
    finally:
        peer.close()


def test_writes_from_another_thread_after_the_command_returned_all_arrive():
    # The command returns at once; a detached task then writes 1...N while the daemon re-reads and
    # registers again after each change it is told of: the last value must reach the client, with
    # no request to prompt it (a write between a read and the registration's installation is caught).
    peer = Peer()
    try:
        for run in range(20):
            opened = peer.request("session/open", {"type": "import"})["result"]
            session = opened["session"]
            peer.request("setField", {"session": session, "field": "total", "value": 3000})
            peer.request("invoke", {"session": session, "command": "importInBackground"})
            deadline = time.monotonic() + 10
            while fold(opened, peer.changes(session))[0]["imported"] != 3000:
                assert time.monotonic() < deadline, (run, fold(opened, peer.changes(session))[0])
                time.sleep(0.01)
            peer.request("session/close", {"session": session})
    finally:
        peer.close()


def test_a_foundation_timer_fires_in_the_daemon():
    peer = Peer()
    try:
        opened = peer.request("session/open", {"type": "stopwatch"})["result"]
        session = opened["session"]
        start = peer.request("invoke", {"session": session, "command": "start"})
        time.sleep(0.55)
        stop = peer.request("invoke", {"session": session, "command": "stop"})
        ticks = [c for c in peer.changes(session) if "ticks" in c["changes"]]
        assert len(ticks) >= 3, ticks  # 0.1 s apart; a loaded machine may fire late, never not at all
        assert [c["changes"]["ticks"] for c in ticks] == list(range(1, len(ticks) + 1))
        assert all("cause" not in c for c in ticks), "a timer's change has no cause"
        state, _ = fold(opened, peer.changes(session))
        time.sleep(0.3)
        assert fold(opened, peer.changes(session))[0] == state, "stopped: no tick after stop"
        assert start["id"] < stop["id"]
    finally:
        peer.close()


def test_a_debounce_replays_exactly_under_the_virtual_clock():
    # --deterministic: the view model's own task (its debounce, then the service's sleep) runs on the
    # main thread, so one clock/advance carries both, the same way every run.
    process = subprocess.Popen([APPD, "--deterministic"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "search"}},
        {"jsonrpc": "2.0", "id": 2, "method": "setField", "params": {"session": 1, "field": "query", "value": "Mo"}},
        {"jsonrpc": "2.0", "id": 3, "method": "clock/advance", "params": {"ms": 500}},
    ]
    output, _ = process.communicate(b"".join(json.dumps(r).encode() + b"\n" for r in requests), timeout=30)
    changes = [m["params"]["changes"] for m in map(json.loads, output.splitlines()) if m.get("method") == "didChange"]
    assert changes == [
        {"state": {"case": "loading"}, "searchCount": 1},
        {"state": {"case": "loaded", "_0": [{"id": 2, "title": "Modern Times", "year": 1936}]}, "resultCount": 1},
    ]
