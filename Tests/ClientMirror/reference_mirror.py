"""The client mirror of protocol.md ("Client mirror"), written as plainly as it can be: the
executable form of the rules, which checks that the corpus in cases/ says what the rules say. Each
face runs the same corpus against its own mirror code with a small runner of its own.

A mirror holds, per session the client knows, its `type`, `revision`, `state` (and `display`, with
that capability); the `setField`s sent and not yet answered (`pending`); and the sessions out of step
(`resync`), which the client asks `session/state` for and ignores until then."""
from __future__ import annotations

import copy
from typing import Any, Dict, List, Optional


def expand(value: Any) -> Any:
    """A case file's shorthand: `{"$range": N}` is the list 0..N-1 (a long insert without a long file)."""
    if isinstance(value, dict):
        if set(value) == {"$range"}:
            return list(range(value["$range"]))
        return {key: expand(item) for key, item in value.items()}
    if isinstance(value, list):
        return [expand(item) for item in value]
    return value


def apply_splice(value: Any, splice: Dict[str, Any]) -> Optional[List[Any]]:
    """The list a splice makes of `value`; None when it does not fit (an op past the end, a length
    that disagrees, not a list)."""
    if not isinstance(value, list):
        return None
    result = list(value)
    for op in splice.get("ops", []):
        at, delete, insert = op["at"], op["delete"], op["insert"]
        if at < 0 or delete < 0 or at + delete > len(result):
            return None
        result[at:at + delete] = insert
    return result if len(result) == splice.get("length") else None


class Mirror:
    def __init__(self, given: Dict[str, Any]) -> None:
        self.sessions: Dict[str, Dict[str, Any]] = copy.deepcopy(expand(given.get("sessions", {})))
        self.pending: List[Dict[str, Any]] = [dict(write, told=False) for write in expand(given.get("pending", []))]
        self.resync: set = set()

    def receive(self, message: Dict[str, Any]) -> None:
        if message.get("method") == "didChange":
            self.did_change(message["params"])
        elif "id" in message:
            self.response(message)

    def did_change(self, params: Dict[str, Any]) -> None:
        ident = str(params["session"])
        session = self.sessions.get(ident)
        if session is None or ident in self.resync:
            return  # not held (closed, detached), or waiting for its state
        if params["revision"] != session["revision"] + 1:
            self.resync.add(ident)
            return
        writer = next((w for w in self.pending if w["id"] == params.get("cause") and str(w["session"]) == ident), None)
        for name, value in params.get("changes", {}).items():
            session["state"][name] = value
            if writer and writer["field"] == name:
                writer["told"] = True
        for name, splice in params.get("splices", {}).items():
            own = writer is not None and writer["field"] == name
            base = writer["value"] if own else session["state"].get(name)
            spliced = apply_splice(base, splice) if own or name in session["state"] else None
            if spliced is None:
                self.resync.add(ident)
                return
            session["state"][name] = spliced
            if own:
                writer["told"] = True
        if "display" in params:
            session.setdefault("display", {}).update(params["display"])
        for child, entry in params.get("children", {}).items():
            self.sessions[child] = {key: copy.deepcopy(entry[key]) for key in ("type", "revision", "state", "display")
                                    if key in entry}
        for child in params.get("detached", []):
            self.sessions.pop(str(child), None)
        session["revision"] = params["revision"]

    def response(self, message: Dict[str, Any]) -> None:
        writer = next((w for w in self.pending if w["id"] == message["id"]), None)
        if writer is None:
            return
        self.pending.remove(writer)
        ident = str(writer["session"])
        session = self.sessions.get(ident)
        if "error" in message or session is None or ident in self.resync:
            return  # a refused write changed nothing
        if not writer["told"] and writer["field"] in session["state"]:
            session["state"][writer["field"]] = writer["value"]  # no echo: what was written is held
        revision = message.get("result", {}).get("revision")
        if isinstance(revision, int) and revision > session["revision"]:
            self.resync.add(ident)  # the write's didChange never came

    def shown(self, ident: str) -> Dict[str, Any]:
        """What a face shows: the state, with each field a write is pending to showing the last
        value written (what the person typed), until its answer."""
        state = dict(self.sessions[ident]["state"])
        for writer in self.pending:
            if str(writer["session"]) == ident:
                state[writer["field"]] = writer["value"]
        return state


def run(case: Dict[str, Any]) -> List[str]:
    """Folds a case's messages into its given mirror; returns what differs from its expectation."""
    mirror = Mirror(case["given"])
    for message in expand(case["receive"]):
        mirror.receive(message)
    expect = expand(case["expect"])
    problems = []
    if sorted(mirror.resync) != sorted(str(s) for s in expect.get("resync", [])):
        problems.append("resync %s, expected %s" % (sorted(mirror.resync), expect.get("resync", [])))
    if "sessions" in expect:
        held = {ident: session for ident, session in mirror.sessions.items() if ident not in mirror.resync}
        if sorted(held) != sorted(expect["sessions"]):
            problems.append("sessions %s, expected %s" % (sorted(held), sorted(expect["sessions"])))
        for ident, expected in expect["sessions"].items():
            actual = held.get(ident, {})
            for key, value in expected.items():
                if actual.get(key) != value:
                    problems.append("session %s %s: %r, expected %r" % (ident, key, actual.get(key), value))
    for ident, expected in expect.get("shown", {}).items():
        shown = mirror.shown(ident)
        for name, value in expected.items():
            if shown.get(name) != value:
                problems.append("session %s shows %s = %r, expected %r" % (ident, name, shown.get(name), value))
    if "pending" in expect and [w["id"] for w in mirror.pending] != expect["pending"]:
        problems.append("pending %s, expected %s" % ([w["id"] for w in mirror.pending], expect["pending"]))
    return problems
