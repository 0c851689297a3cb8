"""The sync Session: one live view model instance in the daemon."""
from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Optional

from .connection import _sliced_wait
from .schema import Schema
from .state import MISSING, Changes, History, SessionBase, Snapshot

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Session"]

ChangeCallback = Callable[[Changes], Any]


class Session(SessionBase):
    """A session opened by ``Client.open``; ``state`` is a live dict the client keeps current.

    Every method blocks until the daemon answers, and by then ``state`` already holds what the
    call changed. Calls may come from several threads at once (they are pipelined).
    """

    def __init__(self, client: "Client", session_id: int, type_name: str, schema: Optional[Schema],
                 key: Optional[str], state: Dict[str, Any], revision: int) -> None:
        super().__init__(client, session_id, type_name, schema, key, state, revision)
        self._client = client
        self._changed = threading.Condition(self._lock)

    # Calls.

    def set(self, field: str, value: Any, timeout: Optional[float] = None, *,
            expected_revision: Optional[int] = None) -> int:
        """Writes a field (setField); returns the session's revision after it.

        ``value`` is JSON, or native values the client encodes by the field's type: an aware
        ``datetime`` or a ``date``, ``uuid.UUID``, ``decimal.Decimal``, ``bytes``, ``set`` /
        ``frozenset``, ``enum.Enum``, nested in lists, tuples and dicts (bindery.values). A name
        that is not a field of the type raises UnknownField without a round trip. The daemon does
        not echo the written value, so the client stores it (as JSON) in ``state`` itself.
        With ``expected_revision``, the write is refused with StaleRevision (and nothing is
        written) when the session has moved on from it: another client of a shared session wrote
        first. ``error.data`` has the current ``revision`` and the field's current ``value``.
        """
        return self._client._run(self._call("setField", timeout,
            lambda t: self._set_flow(field, value, t, expected_revision)))

    def invoke(self, command: str, args: Any = MISSING, timeout: Optional[float] = None, *,
               native: bool = False, expected_revision: Optional[int] = None) -> Any:
        """Runs a command; blocks until it answers (async commands answer when they end).

        Returns what the command returned (None for nothing): its JSON, or with ``native=True``
        native values read by the command's result type (as ``value`` reads a member). ``args``
        may hold native values, encoded as ``set`` encodes them; a row shown in ``state`` (or
        read with ``value``) names that row. On timeout or Ctrl-C the client sends
        ``$/cancelRequest`` and raises (RequestTimeout / KeyboardInterrupt). Unknown names raise
        UnknownCommand without a round trip.
        """
        return self._client._run(self._call("invoke", timeout,
            lambda t: self._invoke_flow(command, args, t, native, expected_revision)))

    def refresh(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Re-reads the whole state (session/state); returns ``state``."""
        return self._client._run(self._call("session/state", timeout, self._refresh_flow))

    def undo(self, timeout: Optional[float] = None) -> History:
        """Undoes the last step of this session's writes (session/undo): a typing burst to one
        field, an undoable command. ``state`` already shows the fields written back (and what
        follows from them) when it returns; so do ``on_change`` callbacks (cause: this request).
        Returns ``History(revision, can_undo, can_redo)``; with nothing to undo, nothing changes."""
        return self._client._run(self._call("session/undo", timeout, lambda t: self._history_flow("session/undo", t)))

    def redo(self, timeout: Optional[float] = None) -> History:
        """Writes again what the last undo took back (session/redo); see ``undo``. A new ``set``,
        or a command that is not undoable, clears what could be redone."""
        return self._client._run(self._call("session/redo", timeout, lambda t: self._history_flow("session/redo", t)))

    def take_snapshot(self, timeout: Optional[float] = None) -> Snapshot:
        """The daemon's snapshot of this session (session/snapshot): ``{type, schemaHash, revision,
        fields}``, the writable fields' values. ``client.open(type, restore=snapshot)`` opens a new
        session that starts from them. (``snapshot()`` is something else: a copy of ``state``.)"""
        return self._client._run(self._call("session/snapshot", timeout, self._take_snapshot_flow))

    def observe(self, names: Iterable[str], timeout: Optional[float] = None) -> Dict[str, Any]:
        """From now on only these members are pushed (session/observe); returns the new ``state``."""
        return self._client._run(self._call("session/observe", timeout, lambda t: self._observe_flow(names, t)))

    def close(self, timeout: Optional[float] = None) -> None:
        """Closes the session (its running commands answer RequestCancelled). Idempotent."""
        self._client._run(self._call("session/close", timeout, self._close_flow))

    # Changes.

    def on_change(self, callback: ChangeCallback) -> Callable[[], None]:
        """Calls ``callback(changes)`` for every change set, in order, on the client's callback thread.

        ``changes`` is a Changes dict (with ``revision`` and ``cause``) of new whole values, lists
        included; ``changes.splices`` has the edit of each list the daemon sent as a splice.
        ``state`` already holds it when the callback runs (and perhaps later changes too). The
        callback thread is one per client, named ``bindery-callbacks``: never the reader, never
        the thread that made the call that caused the change. Returns a function that removes
        the callback.
        """
        return self._add_listener(callback)

    def wait_until(self, predicate: Callable[[Dict[str, Any]], bool],
                   timeout: Optional[float] = None) -> Dict[str, Any]:
        """Blocks until ``predicate(state)`` is true (checked at once, then after every change).

        Returns ``state``; raises WaitTimeout after ``timeout`` seconds, DaemonExited if the
        daemon dies, UnknownSession if the session is closed meanwhile.
        """
        return self._client._run(self._wait_until_flow(predicate, timeout))

    # Called by the client's reader and its flows.

    def _notify_waiters(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _wait_for_change(self, seen: int, timeout: Optional[float]) -> None:
        with self._changed:
            _sliced_wait(self._changed.wait, lambda: self._version != seen, timeout)

    # Context manager: closes the session.

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._client.alive:
            self.close()
