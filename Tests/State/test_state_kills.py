"""`binderyd --state DIR` survives SIGKILL at any moment: no file is ever corrupt, and what a restart
restores is a value that was written, never older than what was on disk when the daemon was killed
(the debounce window, 250 ms, is how long a write may wait to be stored: a bound in time, which a
loaded machine may stretch, so the test holds the daemon to what it had stored, not to a clock).
Each round writes a keyed form for a while, is killed at a random moment, and is checked on restart.
The test command runs a few dozen rounds; for thousands:

    STATE_KILL_ROUNDS=5000 python3 -m pytest Tests/State -q
"""
import json
import os
import random
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DAEMON = os.environ.get("BINDERYD", str(ROOT / ".build" / "debug" / "binderyd"))
ROUNDS = int(os.environ.get("STATE_KILL_ROUNDS", "30"))
KEY = "../../etc/passwd\u0000é" + "k" * 300  # never a path: it must be stored safely inside DIR


def stored_name(directory):
    """The name field of the form's record in DIR, as the daemon last wrote it whole (None if none)."""
    for file in directory.iterdir() if directory.exists() else []:
        if file.suffix == ".json":
            try:
                record = json.loads(file.read_text())
            except ValueError:
                continue  # being replaced right now: the old one is gone, the new one not yet complete
            return record.get("fields", {}).get("name")
    return None


class Daemon:
    def __init__(self, directory):
        self.process = subprocess.Popen([DAEMON, "--state", str(directory)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.next_id = 0
        self.answers = {}
        self.lock = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            message = json.loads(line)
            if "id" in message:
                with self.lock:
                    self.answers[message["id"]] = message
                    self.lock.notify_all()

    def send(self, method, params):
        self.next_id += 1
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.process.stdin.write(json.dumps(body).encode() + b"\n")
        self.process.stdin.flush()
        return self.next_id

    def call(self, method, params):
        id = self.send(method, params)
        with self.lock:
            assert self.lock.wait_for(lambda: id in self.answers, timeout=10), f"no answer to {method}"
            return self.answers[id]

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)
        return self.process.stderr.read().decode()


def test_a_killed_daemon_leaves_no_corrupt_state_and_loses_nothing_it_had_stored(tmp_path):
    random.seed(20261123)
    directory = tmp_path / "state"
    restored = None  # what the last restart found
    for round in range(ROUNDS):
        daemon = Daemon(directory)
        opened = daemon.call("session/open", {"type": "survey", "key": KEY, "observe": ["name"]})
        assert "result" in opened, opened
        assert opened["result"]["state"]["name"] == restored, f"round {round}: restart found {opened}, expected {restored!r}"
        session = opened["result"]["session"]
        # A first write, waited for until it is stored: the daemon does store (a guard of the test).
        first = f"round {round} first"
        daemon.call("setField", {"session": session, "field": "name", "value": first})
        deadline = time.monotonic() + 30
        while stored_name(directory) != first:
            assert time.monotonic() < deadline, f"round {round}: {first!r} was never stored"
            time.sleep(0.01)
        written = [(first, time.monotonic())]  # (value, time written)
        kill_at = time.monotonic() + random.uniform(0.0, 0.6)
        while time.monotonic() < kill_at:
            value = f"round {round} write {len(written)}"
            daemon.call("setField", {"session": session, "field": "name", "value": value})
            written.append((value, time.monotonic()))
            time.sleep(random.choice([0, 0.01, 0.05, 0.3]))
        # What the daemon had put on disk by now: a restart must find it, or something newer.
        # (Read before the kill: the daemon may write more after, never less.)
        persisted = stored_name(directory)
        daemon.process.send_signal(signal.SIGKILL)
        daemon.process.wait(timeout=10)
        # Nothing half-written: every file in DIR is a whole JSON record of the key (or a temporary).
        for file in directory.iterdir():
            assert file.stat().st_mode & 0o077 == 0, f"{file} is readable by others"
            if file.suffix == ".json":
                record = json.loads(file.read_text())
                assert record["key"] == KEY and record["type"] == "survey"
        # On restart (next round's open), the value is one written (or the previous round's), and
        # never older than what was on disk at the kill.
        daemon = Daemon(directory)
        found = daemon.call("session/open", {"type": "survey", "key": KEY, "observe": ["name"]})["result"]["state"]["name"]
        errors = daemon.stop()
        assert "error" not in errors, errors
        candidates = [restored] + [value for value, _ in written]
        assert found in candidates, f"round {round}: restored {found!r}, which was never written"
        if persisted in candidates:
            assert candidates.index(found) >= candidates.index(persisted), (
                f"round {round}: restored {found!r}, older than {persisted!r}, which was on disk before the kill")
        restored = found
    assert all(".corrupt" not in file.name for file in directory.iterdir())
