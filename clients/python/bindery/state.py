"""A session's local mirror: state, revision and schema, shared by the sync and asyncio sessions.

Everything that mutates the mirror runs on the connection's reader (thread or task) under
``lock``; the public session classes add waiting and change delivery on top.
"""
from __future__ import annotations

import threading
from typing import Any, Dict, Iterable, List, Optional, Tuple

from .errors import UnknownSession
from .schema import Schema

__all__ = ["Changes", "SessionBase", "MISSING"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: Marks an argument that was not given (``None`` is a value).
MISSING: Any = _Missing()


class Changes(Dict[str, Any]):
    """One change set: the members that changed and their new values, in declaration order.

    A plain dict, plus ``session`` (id), ``revision`` (the session's revision after it), ``cause``
    (the id of the request that caused it, None for timers) and ``resync`` (true when the client
    computed it by comparing a snapshot with its mirror: a resync after a gap in revisions,
    ``refresh``, ``observe`` or a keyed reopen).
    """

    def __init__(self, changes: Dict[str, Any], session: int, revision: int,
                 cause: Any = None, resync: bool = False) -> None:
        super().__init__(changes)
        self.session = session
        self.revision = revision
        self.cause = cause
        self.resync = resync

    __str__ = dict.__repr__  # print(changes) shows the changes

    def __repr__(self) -> str:
        return "Changes(%s, session=%d, revision=%d, cause=%r)" % (
            dict.__repr__(self), self.session, self.revision, self.cause)


class SessionBase:
    """What sync and async sessions share: the mirror, its updates, and the fail-fast checks."""

    def __init__(self, session_id: int, type_name: str, schema: Optional[Schema], key: Optional[str],
                 state: Dict[str, Any], revision: int) -> None:
        self.id = session_id
        self.type = type_name
        self.schema = schema
        self.key = key
        self._state: Dict[str, Any] = dict(state)
        self._revision = revision
        self._closed = False
        self._resyncing = False
        # Reentrant: a wait_until predicate may call get() while the waiter holds the lock.
        self._lock = threading.RLock()

    # Read-only views.

    @property
    def state(self) -> Dict[str, Any]:
        """The live state: every observed member by name, kept current by the client."""
        return self._state

    @property
    def revision(self) -> int:
        """The revision of the last change applied (0 when opened)."""
        return self._revision

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def fields(self) -> List[str]:
        """Writable field names, from the schema."""
        return self.schema.writable if self.schema else []

    @property
    def outputs(self) -> List[str]:
        """Read-only output names, from the schema."""
        return self.schema.outputs if self.schema else []

    @property
    def commands(self) -> List[str]:
        """Command names, from the schema."""
        return self.schema.command_names if self.schema else []

    def snapshot(self) -> Dict[str, Any]:
        """A copy of the state, taken atomically."""
        with self._lock:
            return dict(self._state)

    def get(self, name: str, default: Any = MISSING) -> Any:
        """One member's value. Unknown names raise UnknownField; unobserved ones KeyError."""
        with self._lock:
            if name in self._state:
                return self._state[name]
        if default is not MISSING:
            return default
        if self.schema is not None:
            self.schema.check_members([name], self.id)
        raise KeyError("%r is not observed by session %d (observing: %s)"
                       % (name, self.id, ", ".join(self._state)))

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __repr__(self) -> str:
        return "<%s %d %s rev %d%s>" % (type(self).__name__, self.id, self.type, self._revision,
                                        " closed" if self._closed else "")

    # Building requests (with the local checks).

    def _check_open(self) -> None:
        if self._closed:
            raise UnknownSession.make("Session %d (%s) is closed" % (self.id, self.type),
                                      {"session": self.id}, local=True)

    def _set_params(self, field: str, value: Any) -> Dict[str, Any]:
        self._check_open()
        if self.schema is not None:
            self.schema.check_field(field, self.id)
        return {"session": self.id, "field": field, "value": value}

    def _invoke_params(self, command: str, args: Any) -> Dict[str, Any]:
        self._check_open()
        if self.schema is not None:
            self.schema.check_command(command, self.id)
        params: Dict[str, Any] = {"session": self.id, "command": command}
        if args is not MISSING:
            params["args"] = args
        return params

    def _observe_params(self, names: Iterable[str]) -> Dict[str, Any]:
        self._check_open()
        names = list(names)
        if self.schema is not None:
            self.schema.check_members(names, self.id)
        return {"session": self.id, "properties": names}

    # Updates: called on the reader, in arrival order.

    def _apply_did_change(self, params: Dict[str, Any]) -> Tuple[Changes, bool]:
        """Applies a didChange; returns its change set and whether its revision left a gap."""
        revision = params.get("revision")
        changes = params.get("changes") or {}
        with self._lock:
            gap = not isinstance(revision, int) or revision != self._revision + 1
            self._state.update(changes)
            if isinstance(revision, int):
                self._revision = revision
        return Changes(changes, self.id, self._revision, params.get("cause")), gap

    def _apply_snapshot(self, revision: Any, state: Dict[str, Any]) -> Changes:
        """Replaces the mirror (session/state, session/observe, a keyed reopen); returns the diff."""
        with self._lock:
            diff = {name: value for name, value in state.items()
                    if name not in self._state or self._state[name] != value}
            self._state.clear()  # same dict object: `state` stays live for whoever holds it
            self._state.update(state)
            if isinstance(revision, int):
                self._revision = revision
            return Changes(diff, self.id, self._revision, None, resync=True)

    def _store_written(self, field: str, value: Any, caused: Iterable[Tuple[Any, str]],
                       revision: Any) -> bool:
        """After a successful setField: the daemon does not echo the field, so store what was written.

        Skipped when the write's own didChange carried the field (the model stored something
        else) or the field is not observed. Returns whether the revision shows a lost didChange.
        """
        with self._lock:
            if field in self._state and (self.id, field) not in set(caused):
                self._state[field] = value
            return isinstance(revision, int) and revision > self._revision

    def _mark_closed(self) -> None:
        self._closed = True
