"""The sync Client: spawns binderyd, initializes it, opens sessions."""
from __future__ import annotations

import logging
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Sequence, Type

from .connection import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, Connection
from .discovery import find_daemon
from .dispatcher import CallbackDispatcher
from .framing import CONTENT_LENGTH
from .hub import Hub
from .rpc import ResultHook
from .session import Session
from .state import Changes, SessionBase

__all__ = ["Client"]

logger = logging.getLogger("bindery")


class Client(Hub):
    """A binderyd child process and the sessions opened in it.

    ``with Client() as client:`` starts the daemon and sends ``initialize``; leaving the block
    sends ``shutdown`` and ``exit`` and waits for the process. ``daemon`` is the executable
    (default: $BINDERYD, PATH, then the repository's .build), ``args`` extra daemon arguments
    (``["--deterministic"]``), ``timeout`` the default for every request (None: wait as long as
    the daemon lives). Thread-safe: calls from several threads are pipelined.
    """

    def __init__(self, daemon: Optional[str] = None, args: Optional[Sequence[str]] = None, *,
                 framing: str = CONTENT_LENGTH, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None, initialize: bool = True, timeout: Optional[float] = None,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE, stderr_lines: int = DEFAULT_STDERR_LINES) -> None:
        self.daemon_path = find_daemon(daemon)
        self.timeout = timeout
        connection = Connection([self.daemon_path, *(args or [])], framing=framing, env=env, cwd=cwd,
                                stderr_lines=stderr_lines, cancel_grace=cancel_grace)
        super().__init__()
        self._attach(connection)
        self._connection = connection
        self._dispatcher = CallbackDispatcher()
        connection.on_lost.append(self._on_lost)
        if initialize:
            try:
                self._take_initialize(self._call("initialize", self._initialize_params(), timeout))
            except BaseException:
                connection.kill()
                connection.close(timeout=2.0)
                self._dispatcher.stop()
                raise

    # Sessions.

    def open(self, type: str, args: Optional[Dict[str, Any]] = None, observe: Optional[Sequence[str]] = None,
             key: Optional[str] = None, timeout: Optional[float] = None) -> Session:
        """Opens a session of a view model ``type`` (session/open).

        ``args`` go to the type's constructor, ``observe`` limits the members pushed, ``key``
        names a session to share: opening a key that is open returns the same session.
        """
        params = self._open_params(type, args, observe, key)
        opened: List[SessionBase] = []

        def adopt(result: Any, pending: Any) -> None:  # on the reader, before any didChange for it
            opened.append(self._adopt(type, key, result))

        self._call("session/open", params, timeout, adopt)
        return opened[0]  # type: ignore[return-value]

    def describe(self, type: Optional[str] = None, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """The schemas (viewModels/describe): of every type, or only ``type``."""
        result = self._call("viewModels/describe", {"type": type} if type is not None else None, timeout)
        return self._take_schemas(result.get("viewModels") or [])

    def advance_clock(self, ms: int, timeout: Optional[float] = None) -> int:
        """Moves a ``--deterministic`` daemon's virtual clock (clock/advance); returns its time in ms.

        Timers and sleeps that fall due run first, so their changes are in ``state`` on return.
        """
        result = self._call("clock/advance", {"ms": ms}, timeout)
        return int(result["now"])

    # Low level.

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its result (errors raise the matching BinderyError)."""
        return self._call(method, params, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        """Sends any notification."""
        self._connection.notify(method, params)

    def drain_callbacks(self, timeout: Optional[float] = None) -> bool:
        """Waits until every on_change callback queued so far has run; False on timeout."""
        return self._dispatcher.drain(timeout)

    @property
    def connection(self) -> Connection:
        return self._connection

    @property
    def process(self) -> "subprocess.Popen[bytes]":
        """The daemon's process."""
        return self._connection.process

    @property
    def alive(self) -> bool:
        return self._connection.alive

    @property
    def stderr_tail(self) -> List[str]:
        """The daemon's last stderr lines."""
        return self._connection.stderr_tail

    def close(self, timeout: float = 5.0) -> Optional[int]:
        """Sends shutdown and exit, waits for the daemon, runs pending callbacks; its exit code."""
        code = self._connection.close(timeout)
        self._dispatcher.stop(timeout)
        return code

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], *rest: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<Client pid %d %s>" % (self._connection.pid, "alive" if self.alive else "closed")

    # Internals.

    def _call(self, method: str, params: Any, timeout: Optional[float],
              on_result: Optional[ResultHook] = None) -> Any:
        return self._connection.request(method, params, self.timeout if timeout is None else timeout, on_result)

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> SessionBase:
        return Session(self, session_id, type_name, self._schemas.get(type_name), key, state, revision)

    def _deliver(self, session: SessionBase, changes: Changes) -> None:
        assert isinstance(session, Session)
        session._wake()
        for listener in session._listeners_now():
            self._dispatcher.submit(listener, changes)

    def _touch(self, session: SessionBase) -> None:
        assert isinstance(session, Session)
        session._wake()

    def _on_lost(self, failure: Optional[BaseException]) -> None:
        for session in list(self._sessions.values()):
            if failure is None:
                session._mark_closed()
            self._touch(session)
