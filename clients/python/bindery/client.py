"""The sync Client: spawns binderyd, initializes it, opens sessions."""
from __future__ import annotations

import subprocess
import time
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Type, TypeVar, cast

from .connection import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, Connection, _sliced_wait
from .dispatcher import CallbackDispatcher
from .endpoint import Flow
from .framing import CONTENT_LENGTH
from .hub import Hub
from .reconnect import Reconnector
from .session import Session
from .socket_connection import SocketConnection, connect_socket

__all__ = ["Client"]

T = TypeVar("T")


class Client(Hub[Session]):
    """A binderyd child process and the sessions opened in it.

    ``with Client() as client:`` starts the daemon and sends ``initialize``; leaving the block
    sends ``shutdown`` and ``exit`` and waits for the process. ``daemon`` is the executable
    (default: $BINDERYD, PATH, ~/.local/bin, then the repository's .build), ``args`` extra daemon
    arguments (``["--deterministic"]``), ``timeout`` the default for every request (None: wait as
    long as the daemon lives). ``splices=False`` does not ask for list splices (the daemon then
    sends lists whole; ``state`` is the same either way). ``display=True`` asks for the daemon's text
    of each value (``session.display``). Thread-safe: calls from several threads
    are pipelined.

    ``socket="auto"`` (or a path) connects to a shared daemon (``binderyd --listen``) instead of
    spawning one, starting it (with ``args``) when none answers, unless ``start=False``: sessions
    opened with a ``key`` are then shared with the daemon's other clients — an editor's form, another
    script — and ``close()`` ends this client's connection only. When that daemon dies, the client
    reconnects on its own (see ``on_connection``) and reopens its keyed sessions; a call on one of
    them made meanwhile (or ``open``) waits for that, within its timeout (see ``reconnecting``).
    """

    def __init__(self, daemon: Optional[str] = None, args: Optional[Sequence[str]] = None, *,
                 framing: str = CONTENT_LENGTH, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None, initialize: bool = True, timeout: Optional[float] = None,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE, stderr_lines: int = DEFAULT_STDERR_LINES,
                 splices: bool = True, socket: Optional[str] = None, start: bool = True,
                 display: bool = False) -> None:
        super().__init__(daemon, args, timeout, splices, display, socket)
        self._dispatcher = CallbackDispatcher()
        self._reconnector: Optional[Reconnector] = None
        path = self._socket_path
        if path is not None:
            # A shared daemon (binderyd --listen): connect, starting one when none answers.
            # The daemon's supervisor keeps auto's keyed forms in the user's state directory.
            daemon_args = list(args or ())

            def connect() -> SocketConnection:
                sock = connect_socket(path, self.daemon_path, daemon_args, start=start)
                return SocketConnection(sock, path, framing=framing, stderr_lines=stderr_lines,
                                        cancel_grace=cancel_grace)
            self._attach(connect())
            self._reconnector = Reconnector(connect)
        else:
            self._attach(Connection(self._argv, framing=framing, env=env, cwd=cwd, stderr_lines=stderr_lines,
                                    cancel_grace=cancel_grace))
        self._run(self._start_flow(initialize))

    # Sessions.

    def open(self, type: str, args: Optional[Dict[str, Any]] = None, observe: Optional[Sequence[str]] = None,
             key: Optional[str] = None, timeout: Optional[float] = None, *,
             schema_hash: Optional[str] = None, restore: Optional[Mapping[str, Any]] = None) -> Session:
        """Opens a session of a view model ``type`` (session/open).

        ``args`` go to the type's constructor, ``observe`` limits the members pushed, ``key``
        names a session to share: opening a key that is open returns the same session.
        ``schema_hash`` is the type's schemaHash as a generated client knows it: when the daemon's
        differs, the open fails with SchemaMismatch (see bindery.typed). ``restore`` is a
        snapshot (``session.take_snapshot()``) whose fields the new session starts with; one that
        does not fit the type fails with SnapshotMismatch. ``session.restored`` tells whether a
        keyed session came back from ``binderyd --state DIR``.
        """
        return self._run(self._call_when_connected(
            None, "session/open", timeout,
                lambda t: self._open_flow(type, args, observe, key, t, schema_hash, restore)))

    def describe(self, type: Optional[str] = None, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """The schemas (viewModels/describe): of every type, or only ``type``."""
        return self._run(self._describe_flow(type, timeout))

    def advance_clock(self, ms: int, timeout: Optional[float] = None) -> int:
        """Moves a ``--deterministic`` daemon's virtual clock (clock/advance); returns its time in ms.

        Timers and sleeps that fall due run first, so their changes are in ``state`` on return.
        """
        return self._run(self._advance_clock_flow(ms, timeout))

    # Low level.

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its result (errors raise the matching BinderyError)."""
        return self._run(self._call_flow(method, params, timeout))

    def wait_connected(self, timeout: Optional[float] = None) -> bool:
        """Blocks until the client is connected (after a reconnect: its keyed sessions reopened);
        False when ``timeout`` passes first or the client is closed."""
        # Short sleeps, which Ctrl-C interrupts.
        return _sliced_wait(lambda seconds: time.sleep(min(seconds, 0.05)), lambda: self.alive or self._closed,
                            timeout) and self.alive

    def drain_callbacks(self, timeout: Optional[float] = None) -> bool:
        """Waits until every on_change callback queued so far has run; False on timeout.

        From a callback itself it returns True at once (waiting for itself would never end).
        """
        return self._dispatcher.drain(timeout)

    @property
    def connection(self) -> Connection:
        return cast(Connection, self._peer)

    @property
    def process(self) -> "subprocess.Popen[bytes]":
        """The daemon's process."""
        return self.connection.process

    def close(self, timeout: float = 5.0) -> Optional[int]:
        """Sends shutdown and exit, waits for the daemon, runs pending callbacks; its exit code."""
        with self._swap:
            self._closed = True
        if self._reconnector is not None:
            self._reconnector.stop(timeout)
        code = self.connection.close(timeout)
        self._dispatcher.stop(timeout)
        return code

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, exc_type: Optional[Type[BaseException]], *rest: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if isinstance(self.connection, SocketConnection):
            return "<Client socket %s %s>" % (self.connection.path, "alive" if self.alive else "closed")
        return "<Client pid %d %s>" % (self.connection.pid, "alive" if self.alive else "closed")

    # Internals.

    def _run(self, flow: Flow[T]) -> T:
        return self.connection.run(flow)

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> Session:
        return Session(self, session_id, type_name, self._schemas.get(type_name), key, state, revision)

    def _submit(self, callback: Callable[[Any], Any], item: Any) -> None:
        self._dispatcher.submit(callback, item)

    def _start_failed(self) -> None:
        self._dispatcher.stop()

    def _reconnect_later(self, flow: Flow[None]) -> None:
        assert self._reconnector is not None
        self._reconnector.start(flow)
