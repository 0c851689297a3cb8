"""Writes from other threads, in a user's daemon linked dynamically: every change reaches the client,
in order, and what the client folded equals `session/state`, every time.

Each session's view model (FeedViewModel) has three writers — a thread, a dispatch queue and a
`nonisolated async` method — each writing 1…COUNT and waiting for the client's `ack` of each value
before the next, while the client keeps writing a field (the main thread reads the model meanwhile).
A change lost leaves its writer waiting: the test then names the writer and the value it was told
last. STRESS_SESSIONS sets the number of sessions (default 400: 400 × 3 × 10 = 12,000 writes; a long
run: STRESS_SESSIONS=5000)."""
import os
import queue

from pipes import Daemon

SESSIONS = int(os.environ.get("STRESS_SESSIONS", "400"))
COUNT = 10
WRITERS = ["threadCount", "queueCount", "taskCount"]


def run_session(daemon, number):
    opened, _ = daemon.request("session/open", {"type": "feed"})
    session = opened["result"]["session"]
    fold = dict(opened["result"]["state"])
    revision = opened["result"]["revision"]
    pending = {daemon.send("invoke", {"session": session, "command": "start", "args": COUNT})}
    acked = [0, 0, 0]
    notes = 0
    while any(fold[name] < COUNT for name in WRITERS) or pending:
        try:
            message = daemon.next(timeout=10)
        except queue.Empty:
            stuck = {name: fold[name] for name in WRITERS if fold[name] < COUNT}
            raise AssertionError(f"session {number}: a change was lost: writers stuck at {stuck}, "
                                 f"requests unanswered {sorted(pending)}") from None
        if "id" in message:
            assert "error" not in message, message
            pending.discard(message["id"])
            continue
        params = message["params"]
        assert params["session"] == session
        assert params["revision"] == revision + 1, f"a revision was skipped: {revision} -> {params['revision']}"
        revision = params["revision"]
        for name, value in params["changes"].items():
            if name in WRITERS:
                assert value >= fold[name], f"{name} went back from {fold[name]} to {value}"
            fold[name] = value
        for writer, name in enumerate(WRITERS):
            if fold[name] > acked[writer]:
                acked[writer] = fold[name]
                pending.add(daemon.send("invoke", {"session": session, "command": "ack",
                                                   "args": {"writer": writer, "value": fold[name]}}))
                # Keep the main thread reading and writing the model while the writers write.
                notes += 1
                fold["note"] = f"note {notes}"
                pending.add(daemon.send("setField", {"session": session, "field": "note", "value": fold["note"]}))
    state, told = daemon.request("session/state", {"session": session})
    for message in told:  # changes after the last write (none expected: every writer is done)
        fold.update(message["params"]["changes"])
    assert state["result"]["state"] == fold, f"session {number}: the fold differs from session/state"
    assert fold["total"] == COUNT * len(WRITERS)
    daemon.request("session/close", {"session": session})


def test_every_change_from_other_threads_reaches_the_client(user_daemon):
    daemon = Daemon([user_daemon])
    try:
        for number in range(SESSIONS):
            run_session(daemon, number)
    finally:
        daemon.close()
