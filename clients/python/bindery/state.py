"""A session's local mirror and its calls, shared by the sync and asyncio sessions.

The session's data is its entry in the client's mirror (mirror.py), which the connection's reader
(thread or task) folds into under the mirror's lock. The calls (``set``, ``invoke``, ``wait_until``, ...) are flows (see endpoint.py): the
public session classes only run them, blocking (session.py) or awaiting (aio.py), and deliver
changes to their listeners.
"""
from __future__ import annotations

import threading
import time
from typing import (
    TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Mapping, NamedTuple, Optional, TypedDict, TypeVar, cast, overload,
)

from .endpoint import WAIT_CHANGE, Flow
from .errors import UnknownSession, WaitTimeout
from .mirror import child_ref, child_refs
from .schema import Schema
from .values import converts, decode, encode

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["Changes", "SessionBase", "MISSING", "History", "Snapshot"]


_Self = TypeVar("_Self", bound="SessionBase")
_T = TypeVar("_T")


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: Marks an argument that was not given (``None`` is a value).
MISSING: Any = _Missing()


class Changes(Dict[str, Any]):
    """One change set: the members that changed and their new values, in declaration order.

    A plain dict, plus ``session`` (id), ``revision`` (the session's revision after it), ``cause``
    (the id of the request that caused it, None for timers), ``resync`` (true when the client
    computed it by comparing a snapshot with its mirror: a resync after a gap in revisions,
    ``refresh``, ``observe`` or a keyed reopen) and ``splices``.

    A list the daemon sent as a splice is in the dict with its new whole value, like any other
    member, and in ``splices`` by name with the edit itself, ``{"ops": [{"at", "delete",
    "insert"}], "length"}`` (protocol.md, "List splices"): for a view that inserts one row rather
    than redraw the list. ``splices`` is empty when the daemon sent whole values.
    """

    def __init__(self, changes: Dict[str, Any], session: int, revision: int,
                 cause: Any = None, resync: bool = False, splices: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(changes)
        self.session = session
        self.revision = revision
        self.cause = cause
        self.resync = resync
        self.splices: Dict[str, Any] = splices or {}

    __str__ = dict.__repr__  # print(changes) shows the changes

    def __repr__(self) -> str:
        return "Changes(%s, session=%d, revision=%d, cause=%r%s)" % (
            dict.__repr__(self), self.session, self.revision, self.cause,
            ", splices=%r" % self.splices if self.splices else "")


class History(NamedTuple):
    """What ``undo()`` and ``redo()`` return (session/undo, session/redo)."""

    #: The session's revision once the changes the undo (or redo) caused were applied.
    revision: int
    #: Whether another step can be undone.
    can_undo: bool
    #: Whether a step can be redone.
    can_redo: bool


class Snapshot(TypedDict):
    """What ``take_snapshot()`` returns (session/snapshot), and ``open(..., restore=)`` takes: a
    plain JSON-ready dict, to keep (``json.dump`` it) and restore later."""

    type: str
    schemaHash: str
    revision: int
    #: The writable fields' values (outputs are recomputed when it is restored).
    fields: Dict[str, Any]


class SessionBase:
    """What sync and async sessions share: the mirror, its updates, the fail-fast checks, the calls."""

    def __init__(self, client: "Hub[Any]", session_id: int, type_name: str, schema: Optional[Schema],
                 key: Optional[str], state: Dict[str, Any], revision: int) -> None:
        self._hub = client
        self.type = type_name
        self.schema = schema
        self.key = key
        #: This session in the client's mirror: its id, revision, state, display, parent.
        self._held = client._mirror.hold(session_id, type_name, revision, state, owner=self)
        self._closed = False
        self._detached = False
        self._restored = False
        self._resyncing = False
        #: Why it is closed, when the client closed it (its daemon ended and it did not come back).
        self._closed_why = ""
        #: A keyed session's session/open params: what a reconnect reopens it with.
        self._open_params: Dict[str, Any] = {}
        # The mirror's (reentrant: a wait_until predicate may call get() while the waiter holds it).
        self._lock: "threading.RLock" = client._mirror.lock
        self._version = 0  # counts wake-ups: a waiter that saw n waits until it is no longer n
        self._listeners: List[Callable[[Changes], Any]] = []

    # Read-only views.

    @property
    def id(self) -> int:
        """The daemon's id of this session (a keyed session reattached after a reconnect has a new one)."""
        return self._held.id

    @property
    def state(self) -> Dict[str, Any]:
        """The live state: every observed member by name, kept current by the client."""
        return self._held.state

    @property
    def display(self) -> Dict[str, Any]:
        """With ``Client(display=True)``: the daemon's text of each member that is not a string, a
        list or a child (``"0.5"``, ``"circle(radius: 1.5)"``), kept current beside ``state``."""
        return self._held.display

    @property
    def revision(self) -> int:
        """The revision of the last change applied (0 when opened)."""
        return self._held.revision

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def parent(self: _Self) -> Optional[_Self]:
        """The session whose member shows this one, for a child view model (a tab, a row, a
        detail: protocol.md, "Child view models"); None for a session opened with ``open``."""
        return self._held.parent.owner if self._held.parent is not None else None

    @property
    def detached(self) -> bool:
        """True once the parent no longer shows this child (the daemon closed its session): it is
        ``closed`` too, and every call on it raises UnknownSession."""
        return self._detached

    @property
    def restored(self) -> bool:
        """True when the last ``open`` of this session found it stored by ``binderyd --state DIR``
        (its fields came back from the previous run; outputs were recomputed)."""
        return self._restored

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
            return dict(self.state)

    def get(self, name: str, default: Any = MISSING) -> Any:
        """One member's value. Unknown names raise UnknownField; unobserved ones KeyError."""
        with self._lock:
            if name in self.state:
                return self.state[name]
        if default is not MISSING:
            return default
        if self.schema is not None:
            self.schema.check_members([name], self.id)
        raise KeyError("%r is not observed by session %d (observing: %s)"
                       % (name, self.id, ", ".join(self.state)))

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    # Child view models: sessions of their own, shown in this state as {"session": id}.

    def child(self: _Self, name: str) -> Optional[_Self]:
        """The child session a member shows (a tab, a detail): a session like any other (``set``,
        ``invoke``, ``state``, ``undo``...), kept current by its own didChanges; None while the
        member is null. The same object every time, until the parent shows another (then this
        one is ``detached``). A member holding rows raises TypeError: see ``rows``."""
        value = self.get(name)
        kind = self._child_kind(name, value)
        if kind == "rows":
            raise TypeError("%r of %s holds rows of child view models: use rows(%r)" % (name, self.type, name))
        return None if value is None else self._child_session(name, value)

    def rows(self: _Self, name: str) -> List[_Self]:
        """The child sessions an array member shows, in its current order (inserts, removals and
        moves followed): each row keeps its session however the rows move. A member holding one
        child raises TypeError: see ``child``."""
        value = self.get(name)
        kind = self._child_kind(name, value)
        if kind == "one":
            raise TypeError("%r of %s holds one child view model, not rows: use child(%r)" % (name, self.type, name))
        return [self._child_session(name, item) for item in value or []]

    def children(self: _Self, name: Optional[str] = None) -> List[_Self]:
        """The child sessions a member shows (its rows, its one child, or none), or with no name
        every child this session shows, in member order."""
        if name is not None:
            value = self.get(name)
            kind = self._child_kind(name, value)
            items = value if kind == "rows" else [value]
            return [self._child_session(name, item) for item in items or [] if item is not None]
        with self._lock:
            idents = child_refs(self.state)
        found = [self._hub._session(ident) for ident in idents]
        return [cast(_Self, session) for session in found if session is not None]

    def _child_kind(self, name: str, value: Any) -> str:
        """"one" or "rows"; TypeError for a member that shows no child view model."""
        kind = self.schema.child_kind(name) if self.schema is not None else None
        if kind is None and self.schema is None:  # no schema: read the value
            kind = "rows" if isinstance(value, list) else "one" if child_ref(value) is not None else None
        if kind is None:
            raise TypeError("%r of %s is not a child view model (its type is %s)"
                            % (name, self.type, (self._member_type(name) or {}).get("type", "unknown")))
        return kind

    def _child_session(self: _Self, name: str, value: Any) -> _Self:
        ident = child_ref(value)
        session = self._hub._session(ident) if ident is not None else None
        if session is None:
            raise UnknownSession.make("%s.%s shows %r, a child session this client does not hold"
                                      % (self.type, name, value), {"session": ident}, local=True)
        return cast(_Self, session)

    # Native values: read by the schema's type objects (bindery.values.decode).

    def value(self, name: str, default: Any = MISSING) -> Any:
        """One member's value as native Python values, read by its type in the schema: a
        ``datetime`` (aware, UTC) for a date, ``uuid.UUID``, ``decimal.Decimal``, ``bytes``, a
        ``set`` for an array of unique strings or numbers, through lists, objects, dictionaries and
        unions (see bindery.values). ``state`` keeps the JSON as received; this converts a copy.
        Unknown names raise UnknownField; unobserved ones KeyError (or return ``default``)."""
        return decode(self.get(name, default), self._member_type(name))

    @overload
    def values(self) -> Dict[str, Any]: ...

    @overload
    def values(self, members: Changes) -> Changes: ...

    @overload
    def values(self, members: Mapping[str, Any]) -> Dict[str, Any]: ...

    def values(self, members: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        """Every member of ``members`` (default: a consistent copy of ``state``) as native values,
        as ``value`` reads one. Given a change set (``on_change``, ``changes()``), returns a
        ``Changes`` with its ``revision``, ``cause`` and the rest kept."""
        source = self.snapshot() if members is None else members
        native = {name: decode(item, self._member_type(name)) for name, item in source.items()}
        if isinstance(members, Changes):
            return Changes(native, members.session, members.revision, members.cause, members.resync, members.splices)
        return native

    def _has_native_values(self) -> bool:
        """Whether any member's native value differs from its JSON (a date, a UUID, a set...)."""
        return self.schema is not None and any(converts(field.raw) for field in self.schema.fields)

    def _member_type(self, name: str) -> Optional[Dict[str, Any]]:
        return self.schema.member_type(name) if self.schema is not None else None

    def __repr__(self) -> str:
        return "<%s %d %s rev %d%s>" % (type(self).__name__, self.id, self.type, self.revision,
                                        " detached" if self._detached else " closed" if self._closed else "")

    # Building requests (with the local checks).

    def _check_open(self) -> None:
        self._hub._conn().check_usable()  # DaemonExited / ClientClosed say more than "closed"
        if self._detached:
            raise UnknownSession.make("Session %d (%s) is detached: its parent, session %s, no longer shows it"
                                      % (self.id, self.type, self.parent.id if self.parent else "?"),
                                      {"session": self.id}, local=True)
        if self._closed:
            raise UnknownSession.make("Session %d (%s) is closed%s" % (self.id, self.type,
                                      ": " + self._closed_why if self._closed_why else ""),
                                      {"session": self.id}, local=True)

    def _set_params(self, field: str, value: Any) -> Dict[str, Any]:
        """setField's params; a native value (a datetime, a Decimal, a set...) is encoded by the
        field's type (bindery.values.encode)."""
        self._check_open()
        if self.schema is not None:
            self.schema.check_field(field, self.id)
        return {"session": self.id, "field": field, "value": encode(value, self._member_type(field))}

    def _invoke_params(self, command: str, args: Any) -> Dict[str, Any]:
        self._check_open()
        described = None
        if self.schema is not None:
            self.schema.check_command(command, self.id)
            described = self.schema.command_named(command)
        params: Dict[str, Any] = {"session": self.id, "command": command}
        if args is not MISSING:
            params["args"] = encode(args, described.args if described is not None else None)
        return params

    def _result_type(self, command: str) -> Optional[Dict[str, Any]]:
        described = self.schema.command_named(command) if self.schema is not None else None
        return described.result if described is not None else None

    def _observe_params(self, names: Iterable[str]) -> Dict[str, Any]:
        self._check_open()
        names = list(names)
        if self.schema is not None:
            self.schema.check_members(names, self.id)
        return {"session": self.id, "properties": names}

    def _mark_closed(self) -> None:
        self._closed = True

    # Waking waiters and listening: the faces notify their own waiters and run the listeners.

    def _wake(self) -> None:
        """Something changed (called on the reader): wake every waiter."""
        with self._lock:
            self._version += 1
        self._notify_waiters()

    def _notify_waiters(self) -> None:
        raise NotImplementedError

    def _add_listener(self, callback: Callable[[Changes], Any]) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)
        return remove

    def _listeners_now(self) -> List[Callable[[Changes], Any]]:
        with self._lock:
            return list(self._listeners)

    # The calls, as flows.

    def _call(self, method: str, timeout: Optional[float], call: Callable[[Optional[float]], Flow[_T]]) -> Flow[_T]:
        """``call(timeout)``, the flow of a call on this session; made while the client reconnects,
        a keyed session's waits for the reconnect first (Hub._call_when_connected)."""
        return self._hub._call_when_connected(self, method, timeout, call)

    def _set_flow(self, field: str, value: Any, timeout: Optional[float],
                  expected_revision: Optional[int] = None) -> Flow[int]:
        params = self._set_params(field, value)
        if expected_revision is not None:
            params["expectedRevision"] = expected_revision
        # The mirror holds the value written (as JSON) when the answer comes: see Hub._on_sent.
        result = yield from self._hub._call_flow("setField", params, timeout)
        return result.get("revision", self.revision) if isinstance(result, dict) else self.revision

    def _invoke_flow(self, command: str, args: Any, timeout: Optional[float], native: bool = False,
                     expected_revision: Optional[int] = None) -> Flow[Any]:
        params = self._invoke_params(command, args)
        if expected_revision is not None:
            params["expectedRevision"] = expected_revision
        result = yield from self._hub._call_flow("invoke", params, timeout)
        result = result.get("result") if isinstance(result, dict) else result
        return decode(result, self._result_type(command)) if native else result

    def _history_flow(self, method: str, timeout: Optional[float]) -> Flow[History]:
        """session/undo or session/redo; the restored fields come by didChange before the answer."""
        self._check_open()
        result = yield from self._hub._call_flow(method, {"session": self.id}, timeout, self._hub._after_history(self))
        return History(int(result["revision"]), bool(result["canUndo"]), bool(result["canRedo"]))

    def _take_snapshot_flow(self, timeout: Optional[float]) -> Flow[Snapshot]:
        self._check_open()
        result = yield from self._hub._call_flow("session/snapshot", {"session": self.id}, timeout)
        return result  # type: ignore[no-any-return]

    def _refresh_flow(self, timeout: Optional[float]) -> Flow[Dict[str, Any]]:
        self._check_open()
        yield from self._hub._call_flow("session/state", {"session": self.id}, timeout, self._hub._after_snapshot(self))
        return self.state

    def _observe_flow(self, names: Iterable[str], timeout: Optional[float]) -> Flow[Dict[str, Any]]:
        params = self._observe_params(names)
        yield from self._hub._call_flow("session/observe", params, timeout, self._hub._after_snapshot(self, False))
        return self.state

    def _close_flow(self, timeout: Optional[float]) -> Flow[None]:
        if self._closed:
            return
        try:
            yield from self._hub._call_flow("session/close", {"session": self.id}, timeout, self._hub._after_close(self))
        except UnknownSession:
            self._hub._forget(self)  # already gone in the daemon

    def _wait_until_flow(self, predicate: Callable[[Dict[str, Any]], bool],
                         timeout: Optional[float]) -> Flow[Dict[str, Any]]:
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            with self._lock:  # the predicate sees a whole update, never half of one
                seen = self._version
                if predicate(self.state):
                    return self.state
            self._check_open()
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                raise WaitTimeout("session %d (%s): condition not met within %ss; state: %r"
                                  % (self.id, self.type, timeout, self.snapshot()))
            yield (WAIT_CHANGE, self, seen, remaining)
