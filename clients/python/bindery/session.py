"""The sync Session: one live view model instance in the daemon."""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional

from .errors import UnknownSession, WaitTimeout
from .schema import Schema
from .state import MISSING, Changes, SessionBase

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Session"]

ChangeCallback = Callable[[Changes], Any]
_WAIT_SLICE = 0.2


class Session(SessionBase):
    """A session opened by ``Client.open``; ``state`` is a live dict the client keeps current.

    Every method blocks until the daemon answers, and by then ``state`` already holds what the
    call changed. Calls may come from several threads at once (they are pipelined).
    """

    def __init__(self, client: "Client", session_id: int, type_name: str, schema: Optional[Schema],
                 key: Optional[str], state: Dict[str, Any], revision: int) -> None:
        super().__init__(session_id, type_name, schema, key, state, revision)
        self._client = client
        self._changed = threading.Condition(self._lock)
        self._listeners: List[ChangeCallback] = []

    # Calls.

    def set(self, field: str, value: Any, timeout: Optional[float] = None) -> int:
        """Writes a field (setField); returns the session's revision after it.

        A name that is not a field of the type raises UnknownField without a round trip. The
        daemon does not echo the written value, so the client stores it in ``state`` itself.
        """
        params = self._set_params(field, value)
        result = self._client._call("setField", params, timeout, self._client._after_set(self, field, value))
        return result.get("revision", self._revision) if isinstance(result, dict) else self._revision

    def invoke(self, command: str, args: Any = MISSING, timeout: Optional[float] = None) -> Any:
        """Runs a command; blocks until it answers (async commands answer when they end).

        Returns what the command returned (None for nothing). On timeout or Ctrl-C the client
        sends ``$/cancelRequest`` and raises (RequestTimeout / KeyboardInterrupt). Unknown names
        raise UnknownCommand without a round trip.
        """
        params = self._invoke_params(command, args)
        result = self._client._call("invoke", params, timeout)
        return result.get("result") if isinstance(result, dict) else result

    def refresh(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Re-reads the whole state (session/state); returns ``state``."""
        self._check_open()
        self._client._call("session/state", {"session": self.id}, timeout, self._client._after_snapshot(self))
        return self._state

    def observe(self, names: Iterable[str], timeout: Optional[float] = None) -> Dict[str, Any]:
        """From now on only these members are pushed (session/observe); returns the new ``state``."""
        params = self._observe_params(names)
        self._client._call("session/observe", params, timeout, self._client._after_snapshot(self))
        return self._state

    def close(self, timeout: Optional[float] = None) -> None:
        """Closes the session (its running commands answer RequestCancelled). Idempotent."""
        if self._closed:
            return
        try:
            self._client._call("session/close", {"session": self.id}, timeout, self._client._after_close(self))
        except UnknownSession:
            self._client._forget(self)  # already gone in the daemon

    # Changes.

    def on_change(self, callback: ChangeCallback) -> Callable[[], None]:
        """Calls ``callback(changes)`` for every change set, in order, on the client's callback thread.

        ``changes`` is a Changes dict (with ``revision`` and ``cause``); ``state`` is already
        updated when it runs. Returns a function that removes the callback.
        """
        with self._lock:
            self._listeners.append(callback)

        def remove() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)
        return remove

    def wait_until(self, predicate: Callable[[Dict[str, Any]], bool],
                   timeout: Optional[float] = None) -> Dict[str, Any]:
        """Blocks until ``predicate(state)`` is true (checked at once, then after every change).

        Returns ``state``; raises WaitTimeout after ``timeout`` seconds, DaemonExited if the
        daemon dies, UnknownSession if the session is closed meanwhile.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while True:
                if predicate(self._state):
                    return self._state
                self._check_open()
                remaining = _WAIT_SLICE if deadline is None else min(_WAIT_SLICE, deadline - time.monotonic())
                if remaining <= 0:
                    raise WaitTimeout("session %d (%s): condition not met within %ss; state: %r"
                                      % (self.id, self.type, timeout, dict(self._state)))
                self._changed.wait(remaining)

    def _check_open(self) -> None:
        self._client._connection.check_usable()  # DaemonExited / ClientClosed say more than "closed"
        super()._check_open()

    # Called by the client on its reader thread.

    def _wake(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def _listeners_now(self) -> List[ChangeCallback]:
        with self._lock:
            return list(self._listeners)

    # Context manager: closes the session.

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._client._connection.alive:
            self.close()
