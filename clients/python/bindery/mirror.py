"""The client mirror (protocol.md, "Client mirror"): what the daemon told this client, and how it
folds what arrives. Free of I/O and of waiting: the client (hub.py) feeds it on the reader, under
``lock``, and acts on what each fold returns (deliver change sets, send ``session/state`` for a
session out of step, make Session objects for new children). ``Tests/ClientMirror`` runs the same
corpus through it as through every other face's mirror (tests/test_client_mirror.py).

Per session held (opened here, or a child of one): ``type``, ``revision``, ``state``, ``display``;
the ``setField``s sent and not answered yet (pending writes); the sessions out of step, whose
didChanges are ignored until their ``session/state`` answers.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Set, Tuple

__all__ = ["Mirror", "Held", "Fold", "Taken", "apply_splice", "child_ref", "child_refs"]


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def apply_splice(value: Any, splice: Any) -> Optional[List[Any]]:
    """The list ``splice`` (``{ops: [{at, delete, insert}], length}``) makes of ``value``, as a new
    list (``value`` is left as it was: change sets already delivered keep what they showed).

    None when it does not fit: ``value`` is not a list, an op reaches past its end, or the result
    has another ``length`` than the daemon's. The client is then out of step and must not guess.
    """
    if not isinstance(value, list) or not isinstance(splice, dict):
        return None
    ops, length = splice.get("ops"), splice.get("length")
    if not isinstance(ops, list) or not _is_count(length):
        return None
    result = list(value)
    for op in ops:
        if not isinstance(op, dict):
            return None
        at: Any = op.get("at")
        delete: Any = op.get("delete")
        insert: Any = op.get("insert")
        if not (_is_count(at) and _is_count(delete) and isinstance(insert, list)) or at + delete > len(result):
            return None
        result[at:at + delete] = insert  # one slice assignment: a long insert is not spread into arguments
    return result if len(result) == length else None


def child_ref(value: Any) -> Optional[int]:
    """The session id of a child as a parent's state shows it (``{"session": id}``), else None."""
    if isinstance(value, dict) and len(value) == 1:
        ident = value.get("session")
        if isinstance(ident, int) and not isinstance(ident, bool):
            return ident
    return None


def child_refs(state: Mapping[str, Any]) -> List[int]:
    """Every child session id a state shows, in member order (rows in their order)."""
    found: List[int] = []
    for value in state.values():
        for item in value if isinstance(value, list) else [value]:
            ident = child_ref(item)
            if ident is not None:
                found.append(ident)
    return found


def _ident(value: Any) -> Optional[int]:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


class Held:
    """One session as the daemon told this client of it. ``state`` is the one dict for the
    session's life (replaced in place), so whoever holds it sees it current."""

    def __init__(self, ident: int, type_name: str, revision: int, state: Mapping[str, Any],
                 display: Optional[Mapping[str, Any]] = None) -> None:
        self.id = ident
        self.type = type_name
        self.revision = revision
        self.state: Dict[str, Any] = dict(state)
        self.display: Dict[str, Any] = dict(display or {})
        #: The held session whose state shows this one (a child), else None.
        self.parent: Optional[Held] = None
        #: What the client built on it (a Session); None for a bare mirror.
        self.owner: Any = None

    def replace(self, revision: Any, state: Mapping[str, Any], display: Optional[Mapping[str, Any]]) -> Dict[str, Any]:
        """Takes a whole state (session/state, a reopen, a child given again); returns what differs."""
        diff = {name: value for name, value in state.items() if name not in self.state or self.state[name] != value}
        self.state.clear()
        self.state.update(state)
        if display is not None:
            self.display.clear()
            self.display.update(display)
        if isinstance(revision, int):
            self.revision = revision
        return diff


class Write(NamedTuple):
    """A setField sent and not answered yet."""
    id: int
    session: int
    field: str
    value: Any


class Fold(NamedTuple):
    """What a didChange did to the mirror."""
    held: Held
    #: The members that changed, with their new whole values (spliced lists too), in state order.
    changes: Dict[str, Any]
    #: The splices folded in, by member.
    splices: Dict[str, Any]
    #: Why the session is now out of step ("" when it is not).
    out_of_step: str
    taken: "Taken"


class Taken(NamedTuple):
    """Children a message gave: made (new here), given again (with what differs), dropped."""
    made: List[Held]
    given_again: List[Tuple[Held, Dict[str, Any]]]
    dropped: List[Held]


class Mirror:
    """Every session this client holds, its pending writes, and which sessions are out of step."""

    def __init__(self) -> None:
        #: Held by every session's reads and waits: a fold is seen whole or not at all.
        self.lock = threading.RLock()
        self.sessions: Dict[int, Held] = {}
        self.pending: Dict[int, Write] = {}  # by request id, in the order sent
        self._told: Set[int] = set()  # pending writes whose own didChange carried their field
        self.out_of_step: Set[int] = set()

    def hold(self, ident: int, type_name: str, revision: int, state: Mapping[str, Any],
             display: Optional[Mapping[str, Any]] = None, owner: Any = None) -> Held:
        """The entry for a session: the one held already when nothing owns it yet (a child the mirror
        made from a message), else a new one."""
        held = self.sessions.get(ident)
        if held is None or held.owner is not None:
            held = self.sessions[ident] = Held(ident, type_name, revision, state, display)
        held.owner = owner
        return held

    # didChange (protocol.md, "Client mirror", rules 1-7).

    def did_change(self, params: Mapping[str, Any]) -> Optional[Fold]:
        """Folds a didChange; None when it is ignored (the session is not held, or out of step)."""
        ident = _ident(params.get("session"))
        held = self.sessions.get(ident) if ident is not None else None
        if held is None or held.id in self.out_of_step:
            return None
        nothing = Taken([], [], [])
        revision = params.get("revision")
        if not isinstance(revision, int) or revision != held.revision + 1:
            self.out_of_step.add(held.id)
            return Fold(held, {}, {}, "revision %r after %d: a didChange was lost" % (revision, held.revision), nothing)
        cause = params.get("cause")
        write = self.pending.get(cause) if isinstance(cause, int) and not isinstance(cause, bool) else None
        if write is not None and write.session != held.id:
            write = None
        changes: Dict[str, Any] = params.get("changes") or {}
        splices: Dict[str, Any] = params.get("splices") or {}
        held.state.update(changes)
        applied: Dict[str, Any] = dict(changes)
        if write is not None and write.field in changes:
            self._told.add(write.id)
        for name, splice in splices.items():
            own = write if write is not None and write.field == name else None
            base = own.value if own is not None else held.state.get(name)
            spliced = apply_splice(base, splice) if own is not None or name in held.state else None
            if spliced is None:
                self.out_of_step.add(held.id)
                return Fold(held, applied, {}, "a splice of %r that does not fit" % name, nothing)
            held.state[name] = applied[name] = spliced
            if own is not None:
                self._told.add(own.id)
        if splices and changes:
            applied = {name: applied[name] for name in held.state if name in applied}
        if isinstance(params.get("display"), dict):
            held.display.update(params["display"])
        taken = self.take_children(held, params.get("children"), params.get("detached"))
        held.revision = revision
        return Fold(held, applied, dict(splices), "", taken)

    # Children (protocol.md, "Child view models").

    def take_children(self, parent: Held, children: Any, detached: Any = None, whole: bool = False) -> Taken:
        """Each entry of ``children`` becomes (or replaces) a session of its own; each id of
        ``detached`` is dropped. ``whole``: the message lists every child under ``parent``
        (session/open, session/state), so one held under it and not listed is dropped too."""
        before = self.descendants(parent) if whole else []
        made: List[Held] = []
        given_again: List[Tuple[Held, Dict[str, Any]]] = []
        listed: Set[int] = set()
        for key, entry in (children if isinstance(children, dict) else {}).items():
            ident = _ident(key)
            if ident is None or not isinstance(entry, dict):
                continue
            listed.add(ident)
            known = self.sessions.get(ident)
            if known is not None:
                given_again.append((known, known.replace(entry.get("revision"), entry.get("state") or {},
                                                         entry.get("display"))))
                self.out_of_step.discard(ident)
            else:
                made.append(self.hold(ident, str(entry.get("type")), entry.get("revision", 0), entry.get("state") or {},
                                      entry.get("display")))
        self._link(parent)
        dropped: List[Held] = []
        gone = [ident for ident in (detached if isinstance(detached, list) else []) if _ident(ident) is not None]
        gone += [held.id for held in before if held.id not in listed]
        for ident in gone:
            dropped += self.drop(_ident(ident))  # type: ignore[arg-type]
        return Taken(made, given_again, dropped)

    def _link(self, parent: Held) -> None:
        """Sets ``parent`` of every held session the tree under ``parent`` shows."""
        todo, seen = [parent], {parent.id}
        while todo:
            held = todo.pop()
            for ident in child_refs(held.state):
                child = self.sessions.get(ident)
                if child is not None and ident not in seen:
                    seen.add(ident)
                    child.parent = held
                    todo.append(child)

    def descendants(self, held: Held) -> List[Held]:
        """Every held session under ``held`` (children, their children...)."""
        found: List[Held] = []
        frontier = {held.id}
        while frontier:
            below = [s for s in self.sessions.values() if s.parent is not None and s.parent.id in frontier and s not in found]
            found += below
            frontier = {s.id for s in below}
        return found

    def drop(self, ident: int) -> List[Held]:
        """Forgets a session (closed, detached) and every session under it; returns them."""
        held = self.sessions.get(ident)
        if held is None:
            return []
        gone = [held] + self.descendants(held)
        for each in gone:
            self.sessions.pop(each.id, None)
            self.out_of_step.discard(each.id)
        return gone

    # Whole states: session/open, session/state, session/observe, a reopen.

    def take_state(self, held: Held, result: Mapping[str, Any], whole: bool = True) -> Tuple[Dict[str, Any], Taken]:
        """Replaces a session's mirror with a result's ``revision``, ``state`` (and ``display``,
        ``children``); it is in step again. Returns what differs, and the children taken."""
        diff = held.replace(result.get("revision"), result.get("state") or {}, result.get("display"))
        self.out_of_step.discard(held.id)
        return diff, self.take_children(held, result.get("children"), whole=whole)

    def behind(self, held: Held, revision: Any) -> bool:
        """A response names a revision this mirror has not reached: a didChange was lost, and the
        session is out of step."""
        if isinstance(revision, int) and not isinstance(revision, bool) and revision > held.revision:
            self.out_of_step.add(held.id)
            return True
        return False

    # Pending writes: one rule for the echo.

    def write_sent(self, request_id: int, session: int, field: str, value: Any) -> None:
        self.pending[request_id] = Write(request_id, session, field, value)

    def answered(self, request_id: Any, result: Any = None, failed: bool = False) -> Optional[Held]:
        """A response: when it answers a pending write, returns its session (None otherwise, or
        when a refused write changed nothing). An answered write holds the value written unless its
        own didChange carried the field (the model stored something else); a revision not reached
        puts the session out of step (``behind``)."""
        write = self.pending.pop(request_id, None) if isinstance(request_id, int) else None
        if write is None:
            return None
        told = write.id in self._told
        self._told.discard(write.id)
        held = self.sessions.get(write.session)
        if failed or held is None or held.id in self.out_of_step:
            return None
        if not told and write.field in held.state:
            held.state[write.field] = write.value  # no echo: what was written is held
        self.behind(held, result.get("revision") if isinstance(result, dict) else None)
        return held

    def forget_sessions(self) -> None:
        """The daemon is gone: its session ids mean nothing to the next one."""
        self.sessions.clear()
        self.out_of_step.clear()

    def forget_writes(self) -> None:
        """The connection is gone: no pending write will be answered."""
        self.pending.clear()
        self._told.clear()

    def shown(self, ident: int) -> Dict[str, Any]:
        """What a face shows: the state, with each field a write is pending to showing the last
        value written (what the person typed), until its answer."""
        state = dict(self.sessions[ident].state)
        for write in self.pending.values():
            if write.session == ident:
                state[write.field] = write.value
        return state
