"""Issue 24: a soak of child view models. Seeded random traffic on appd's tabbedApp — rows added,
removed, moved to the top, incremented, renamed, shown as the detail and hidden, commands sent to
rows that have gone — with the client's fold of every message (the parent's state, each child
session's state from `children`, their didChanges, `detached`) checked against `session/state`
after every request, and every row's count checked against what was sent to that row: a command
never reaches the wrong row.

    python3 -m pytest Tests/Children -q          (SOAK_STEPS=5000 for a long run)
"""
import json
import os
import random
import subprocess
import threading

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPD = os.environ.get("APPD", os.path.join(ROOT, ".build", "debug", "appd"))
STEPS = int(os.environ.get("SOAK_STEPS", "400"))


class Client:
    """NDJSON over appd's pipes, folding what it is told."""

    def __init__(self):
        self.process = subprocess.Popen([APPD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self.lines = self.process.stdout
        self.next_id = 0
        self.states = {}      # session id -> state the client holds
        self.revisions = {}   # session id -> last revision seen

    def adopt(self, children):
        for id, child in (children or {}).items():
            self.states[int(id)] = dict(child["state"])
            self.revisions[int(id)] = child["revision"]

    def request(self, method, params):
        self.next_id += 1
        id = self.next_id
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).encode() + b"\n")
        while True:
            message = json.loads(self.lines.readline())
            if message.get("method") == "didChange":
                change = message["params"]
                session = change["session"]
                assert session in self.states, "a didChange for a session the client was never shown: %s" % change
                assert change["revision"] == self.revisions[session] + 1, change
                self.revisions[session] = change["revision"]
                self.states[session].update(change["changes"])
                self.adopt(change.get("children"))
                for gone in change.get("detached", []):
                    self.states.pop(gone, None)
                    self.revisions.pop(gone, None)
                continue
            assert message.get("id") == id, message
            return message

    def close(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rows_fold_and_commands_never_reach_the_wrong_row(seed):
    rng = random.Random(seed)
    client = Client()
    try:
        opened = client.request("session/open", {"type": "tabbedApp"})["result"]
        app = opened["session"]
        client.states[app] = dict(opened["state"])
        client.revisions[app] = opened["revision"]
        client.adopt(opened.get("children"))
        counters = opened["state"]["countersTab"]["session"]
        expected_counts = {}   # row id (the model's) -> count the row must have
        sessions_of_row = {}   # child session id -> row id, for every row session ever shown
        gone = set()
        for step in range(STEPS):
            rows = [r["session"] for r in client.states[counters]["rows"]]
            for session in rows:
                sessions_of_row.setdefault(session, client.states[session]["id"])
            op = rng.choice(["add", "add", "increment", "increment", "increment", "remove", "move", "rename", "detail", "stale"])
            if op == "add" or not rows:
                assert "result" in client.request("invoke", {"session": counters, "command": "add"})
                continue
            session = rng.choice(rows)
            row = client.states[session]["id"]
            if op == "increment":
                assert "result" in client.request("invoke", {"session": session, "command": "increment"})
                expected_counts[row] = expected_counts.get(row, 0) + 1
            elif op == "remove":
                client.request("invoke", {"session": counters, "command": "remove", "args": row})
                gone.add(session)
            elif op == "move":
                client.request("invoke", {"session": counters, "command": "moveToTop", "args": row})
            elif op == "rename":
                title = "row %d step %d" % (row, step)
                client.request("setField", {"session": session, "field": "title", "value": title})
                client.states[session]["title"] = title  # what this client wrote: never echoed to it
            elif op == "detail":
                command = rng.choice(["showDetail", "hideDetail"])
                client.request("invoke", {"session": app, "command": command, **({"args": row} if command == "showDetail" else {})})
            elif op == "stale" and gone:
                answer = client.request("invoke", {"session": rng.choice(sorted(gone)), "command": "increment"})
                assert answer["error"]["code"] == -32011, answer
            # The fold equals the daemon's state, for the app and every child under it.
            truth = client.request("session/state", {"session": app})["result"]
            assert client.states[app] == truth["state"]
            for id, child in truth.get("children", {}).items():
                assert client.states.get(int(id)) == child["state"], (step, op, id)
        # Every row's count is what was sent to it, and to no other.
        final = {client.states[s]["id"]: client.states[s]["count"] for s in (r["session"] for r in client.states[counters]["rows"])}
        for row, count in final.items():
            assert count == expected_counts.get(row, 0), (row, count, expected_counts.get(row, 0))
    finally:
        client.close()
