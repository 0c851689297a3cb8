"""The concurrency core: one connection's life, its waits and its timeouts, written once for both APIs.

``RpcPeer`` (rpc.py) is the sans-IO protocol: ids, the pending table, response matching, error
mapping, didChange routing, cancellation bookkeeping. ``Endpoint`` adds what a connection to a
child process needs beyond that — whether it is usable, why it ended, the daemon's stderr tail —
and the procedures that have to wait: a request (send, wait, time out, cancel, wait a grace period
for the daemon's answer), the reader loop, the end of the connection, ``close``.

Those procedures are *flows*: generators that never block and never await. Where they must wait
they yield an effect, a tuple ``(op, *args)``; the transport performs it and sends back the result
(or throws its exception, e.g. KeyboardInterrupt or asyncio.CancelledError, into the flow). The
thread transport (connection.py) performs effects by blocking, the asyncio transport
(aio_connection.py) by awaiting, so every rule about ordering, timeouts and failure lives here,
once. The effects:

=============================== ================================================================
``(WAIT_ANSWER, pending, t)``   wait until ``pending`` is answered or ``t`` seconds pass (None:
                                no limit); -> whether it was answered
``(DRAIN,)``                    wait until written bytes are taken by the pipe; raises
                                StdinClosed
``(WAIT_LOST, t)``              wait until the connection has ended; -> whether it has
``(WAIT_EXIT, t)``              wait for the process; -> its exit code, None if it still runs
``(JOIN_STDERR, t)``            wait for the stderr reader to finish
``(JOIN_READERS, t)``           wait for both readers to finish, then release the pipes
``(READ,)``                     -> the next bytes of the daemon's stdout (b"" at its end)
``(READ_STDERR_LINE,)``         -> the next line of its stderr (b"" at its end)
``(WAIT_CHANGE, session, n)``   wait until ``session._version`` is no longer ``n`` (or ``t``
                                seconds, a fourth element, pass)
``(WAIT_RECONNECT, client, t)`` wait until ``client`` is connected again or closed
                                (``client.wait_connected(t)``)
``(RUN, connection, flow)``     run ``flow`` on another connection (a reconnect's); -> its value
=============================== ================================================================
"""
from __future__ import annotations

import collections
import logging
from typing import Any, Callable, Deque, Generator, Generic, List, Optional, Sequence, Tuple, TypeVar

from .errors import BinderyError, ClientClosed, DaemonExited, FramingError, RequestTimeout
from .framing import CONTENT_LENGTH
from .rpc import ErrorHook, Pending, ResultHook, RpcPeer

__all__ = [
    "Endpoint", "Flow", "Effect", "Stepper", "StdinClosed",
    "DEFAULT_CANCEL_GRACE", "DEFAULT_STDERR_LINES", "DEFAULT_CLOSE_TIMEOUT",
    "WAIT_ANSWER", "DRAIN", "WAIT_LOST", "WAIT_EXIT", "JOIN_STDERR", "JOIN_READERS", "READ",
    "READ_STDERR_LINE", "WAIT_CHANGE", "WAIT_RECONNECT", "RUN",
]

logger = logging.getLogger("bindery")
daemon_logger = logging.getLogger("bindery.daemon")

T = TypeVar("T")
Effect = Tuple[Any, ...]
#: A procedure that yields effects for a transport to perform and returns a T.
Flow = Generator[Effect, Any, T]

DEFAULT_CANCEL_GRACE = 2.0  # seconds to wait for the daemon's answer to a cancellation
DEFAULT_STDERR_LINES = 20   # lines of the daemon's stderr kept for DaemonExited
DEFAULT_CLOSE_TIMEOUT = 5.0
LOST_WAIT = 2.0    # after a failed write: how long the reader may take to see the end and say why
EXIT_WAIT = 2.0    # after the end of the daemon's output: how long it may take to exit
STDERR_WAIT = 1.0  # ... and its stderr to be read to the end (its last lines belong in the error)
READ_SIZE = 65536

WAIT_ANSWER = "wait_answer"
DRAIN = "drain"
WAIT_LOST = "wait_lost"
WAIT_EXIT = "wait_exit"
JOIN_STDERR = "join_stderr"
JOIN_READERS = "join_readers"
READ = "read"
READ_STDERR_LINE = "read_stderr_line"
WAIT_CHANGE = "wait_change"
WAIT_RECONNECT = "wait_reconnect"
RUN = "run"


class StdinClosed(Exception):
    """Raised by a transport when the daemon's stdin no longer takes bytes (internal)."""


class Stepper(Generic[T]):
    """Runs a flow one effect at a time, for a transport's ``run``.

    ``effect`` is what the flow waits on (None once it returned ``value``); ``settle`` resumes
    it with an effect's ``(result, exception)``.
    """

    def __init__(self, flow: Flow[T]) -> None:
        self._flow = flow
        self.value: Any = None
        self.effect: Optional[Effect] = None
        self.settle((None, None))

    def settle(self, outcome: Tuple[Any, Optional[BaseException]]) -> None:
        result, error = outcome
        try:
            self.effect = self._flow.send(result) if error is None else self._flow.throw(error)
        except StopIteration as stop:
            self.effect, self.value = None, stop.value


class Endpoint(RpcPeer):
    """A JSON-RPC connection to a daemon process, minus the I/O (see the module's docstring).

    A transport subclass provides ``_transmit``, ``_close_stdin``, ``_kill``, ``_returncode``,
    ``_actor``, ``_signal_lost``, the ops of the effects, and ``run`` to drive flows.
    """

    def __init__(self, argv: Sequence[str], framing: str = CONTENT_LENGTH,
                 stderr_lines: int = DEFAULT_STDERR_LINES, cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        super().__init__(framing)
        self.argv = list(argv)
        self.cancel_grace = cancel_grace
        self._stderr: Deque[str] = collections.deque(maxlen=stderr_lines)
        self._failure_args: Optional[Tuple[Optional[int], str]] = None  # (returncode, reason) once gone
        self._closing = False
        self._closer: object = None  # the thread or task that runs close(): it alone may still send
        #: Called once on the reader when the connection ends, with the failure (None: closed cleanly).
        self.on_lost: List[Callable[[Optional[BaseException]], None]] = []

    # What the transport provides.

    def _close_stdin(self) -> None:
        raise NotImplementedError

    def _kill(self) -> None:
        raise NotImplementedError

    def _returncode(self) -> Optional[int]:
        """The exit code, or None while the process runs."""
        raise NotImplementedError

    def _actor(self) -> object:
        """Who is calling: the current thread or task."""
        raise NotImplementedError

    def _signal_lost(self) -> None:
        """Wakes whoever performs WAIT_LOST."""
        raise NotImplementedError

    # State.

    @property
    def alive(self) -> bool:
        """True while requests can be sent."""
        return self._failure_args is None and not self._closing

    @property
    def stderr_tail(self) -> List[str]:
        """The daemon's last lines on stderr (at most ``stderr_lines``), oldest first."""
        return list(self._stderr)

    def failure(self) -> BaseException:
        """A fresh exception saying why the connection is unusable."""
        if self._failure_args is None:
            return ClientClosed("the client is closed")
        returncode, reason = self._failure_args
        if reason == "closed":
            return ClientClosed("the client is closed (binderyd exited with code %s)" % returncode)
        return DaemonExited(returncode, self.stderr_tail, reason)

    def check_usable(self) -> None:
        if self._failure_args is not None:
            raise self.failure()
        if self._closing and self._actor() is not self._closer:
            raise ClientClosed("the client is closing")  # only close() still sends (shutdown, exit)

    def _write_failure(self) -> BaseException:
        if self._failure_args is not None:
            return self.failure()
        return DaemonExited(self._returncode(), self.stderr_tail, "its stdin is closed")

    # Writing without waiting.

    def write(self, data: bytes) -> None:
        """Writes raw bytes to the daemon's stdin (DaemonExited / ClientClosed when it is gone)."""
        try:
            self._transmit(data)
        except StdinClosed:
            raise self._write_failure() from None

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (no answer comes)."""
        try:
            super().notify(method, params)
        except StdinClosed:
            raise self._write_failure() from None

    def kill(self) -> None:
        """Kills the daemon at once (pending requests fail with DaemonExited)."""
        self._kill()

    # Flows: requests.

    def request_flow(self, method: str, params: Any = None, timeout: Optional[float] = None,
                     on_result: Optional[ResultHook] = None, on_error: Optional[ErrorHook] = None) -> Flow[Any]:
        """Sends a request and waits for its answer: its result, or raises its error (see wait_flow)."""
        try:
            pending = self.send_request(method, params, on_result, on_error)
        except StdinClosed:
            return (yield from self._write_failed())
        yield from self.drain_flow()
        return (yield from self.wait_flow(pending, timeout))

    def drain_flow(self) -> Flow[None]:
        """Waits until what was written is taken by the pipe (asyncio; at once with threads)."""
        try:
            yield (DRAIN,)
        except StdinClosed:
            yield from self._write_failed()

    def _write_failed(self) -> Flow[Any]:
        yield (WAIT_LOST, LOST_WAIT)  # let the reader see the end of the output and say why
        raise self._write_failure()

    def wait_flow(self, pending: Pending, timeout: Optional[float] = None) -> Flow[Any]:
        """Waits for a sent request's answer: its result, or raises its error.

        On ``timeout`` (seconds), or when the wait is interrupted (KeyboardInterrupt, a cancelled
        task), sends ``$/cancelRequest`` for it. An interruption is re-raised at once; a timeout
        waits up to ``cancel_grace`` seconds for the daemon's answer, so that the state the
        cancellation resets is current, then raises RequestTimeout with that answer on it.
        """
        try:
            answered = yield (WAIT_ANSWER, pending, timeout)
        except BaseException:  # KeyboardInterrupt, CancelledError: give up the request, politely
            self.cancel(pending)
            raise
        if not answered:
            self.cancel(pending)
            error = RequestTimeout(pending.method, pending.id, timeout or 0.0)
            if (yield (WAIT_ANSWER, pending, self.cancel_grace)):
                if isinstance(pending.error, BinderyError):
                    error.cancellation = pending.error
                elif pending.error is None:
                    error.late_result = pending.result
            raise error
        return pending.outcome()

    # Flows: the readers and the end of the connection.

    def read_flow(self) -> Flow[None]:
        """The reader: hands the daemon's output to the protocol until it ends, then fails what is left."""
        reason = ""
        try:
            while True:
                chunk = yield (READ,)
                if not chunk:
                    for body in self.decoder.finish():  # a last NDJSON line without its newline
                        self.handle_body(body)
                    break
                self.receive(chunk)
        except FramingError as error:
            reason = "unreadable output: %s" % error
            logger.error("bindery: %s; stopping the daemon", reason)
            self._kill()
        except OSError as error:
            reason = "reading its output failed: %s" % error
        except Exception as error:  # a bug here must still fail the waiters, never hang them
            reason = "client reader failed: %r" % (error,)
            logger.exception("bindery: the reader failed")
            self._kill()
        except BaseException:  # the reader task was cancelled
            self._kill()
            self._connection_lost("the client's reader was cancelled", None)
            raise
        returncode = yield (WAIT_EXIT, EXIT_WAIT)  # None: it closed its output but still runs
        yield (JOIN_STDERR, STDERR_WAIT)
        self._connection_lost(reason, returncode)

    def stderr_flow(self) -> Flow[None]:
        """Reads the daemon's stderr (always: a full pipe would block it), keeping the last lines."""
        try:
            while True:
                raw = yield (READ_STDERR_LINE,)
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._stderr.append(line)
                daemon_logger.debug("%s", line)
        except (OSError, ValueError):
            pass

    def _connection_lost(self, reason: str, returncode: Optional[int]) -> None:
        if self._failure_args is not None:
            return
        clean = self._closing and not reason
        self._failure_args = (returncode, "closed" if clean else reason)
        self._signal_lost()
        self.fail_all(self.failure)
        for handler in list(self.on_lost):
            try:
                handler(None if clean else self.failure())
            except Exception:
                logger.exception("bindery: a connection-lost handler raised")

    def close_flow(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> Flow[Optional[int]]:
        """shutdown, exit, then waits for the process (killing it after ``timeout``); its exit code."""
        if self._closing:
            yield (JOIN_READERS, timeout)
            return self._returncode()
        self._closer = self._actor()
        self._closing = True
        try:
            if self._failure_args is None:
                try:
                    yield from self.request_flow("shutdown", timeout=timeout)
                    self.notify("exit")
                except Exception:
                    logger.debug("bindery: shutdown failed", exc_info=True)
            self._close_stdin()
            if (yield (WAIT_EXIT, timeout)) is None:
                logger.warning("bindery: binderyd did not exit in %gs; killing it", timeout)
                self._kill()
                yield (WAIT_EXIT, timeout)
        except BaseException:
            self._kill()
            raise
        finally:
            yield (JOIN_READERS, timeout)
        return self._returncode()
