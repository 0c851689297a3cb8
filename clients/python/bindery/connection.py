"""The sync transport: binderyd as a child process, one reader thread, one stderr thread."""
from __future__ import annotations

import collections
import logging
import os
import subprocess
import threading
import time
from typing import Any, Callable, Deque, List, Mapping, Optional, Sequence, Tuple

from .errors import BinderyError, ClientClosed, DaemonExited, FramingError, RequestTimeout
from .framing import CONTENT_LENGTH
from .rpc import ErrorHook, Pending, ResultHook, RpcPeer

__all__ = ["Connection", "SyncPending", "DEFAULT_CANCEL_GRACE", "DEFAULT_STDERR_LINES"]

logger = logging.getLogger("bindery")
daemon_logger = logging.getLogger("bindery.daemon")

DEFAULT_CANCEL_GRACE = 2.0  # seconds to wait for the daemon's answer to a cancellation
DEFAULT_STDERR_LINES = 20
_WAIT_SLICE = 0.2  # waits are sliced so that Ctrl-C is seen promptly on every platform


class SyncPending(Pending):
    """A Pending a thread can block on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._event = threading.Event()

    def _wake(self) -> None:
        self._event.set()

    def wait(self, timeout: Optional[float]) -> bool:
        """True once answered; False when ``timeout`` (None: forever) passes first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = _WAIT_SLICE if deadline is None else min(_WAIT_SLICE, deadline - time.monotonic())
            if remaining <= 0:
                return self._event.is_set()
            if self._event.wait(remaining):
                return True


class Connection(RpcPeer):
    """JSON-RPC over a child's stdin/stdout; thread-safe; requests may be pipelined."""

    pending_class = SyncPending

    def __init__(self, argv: Sequence[str], *, framing: str = CONTENT_LENGTH,
                 env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                 stderr_lines: int = DEFAULT_STDERR_LINES, cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        super().__init__(framing)
        self.argv = list(argv)
        self.cancel_grace = cancel_grace
        self._stderr: Deque[str] = collections.deque(maxlen=stderr_lines)
        self._write_lock = threading.Lock()
        self._failure_args: Optional[Tuple[Optional[int], str]] = None  # (returncode, reason) once gone
        self._closing = False
        self._closing_thread: Optional[threading.Thread] = None
        self._lost = threading.Event()
        #: Called once on the reader thread when the connection ends, with the failure (or None).
        self.on_lost: List[Callable[[Optional[BaseException]], None]] = []
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, env=dict(env) if env is not None else None, cwd=cwd)
        self._stderr_thread = threading.Thread(target=self._read_stderr, name="bindery-stderr", daemon=True)
        self._reader_thread = threading.Thread(target=self._read_stdout, name="bindery-reader", daemon=True)
        self._stderr_thread.start()
        self._reader_thread.start()

    # State.

    @property
    def pid(self) -> int:
        return self.process.pid

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
        if self._closing and threading.current_thread() is not self._closing_thread:
            raise ClientClosed("the client is closing")  # only close() still sends (shutdown, exit)

    # Writing.

    def write(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(data)
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            # The daemon is gone; let the reader see the end of its output and say why.
            if not self._lost.wait(2.0):
                raise DaemonExited(self.process.poll(), self.stderr_tail, "its stdin is closed") from None
            raise self.failure() from None

    # Requests.

    def request(self, method: str, params: Any = None, timeout: Optional[float] = None,
                on_result: Optional[ResultHook] = None, on_error: Optional[ErrorHook] = None) -> Any:
        """Sends a request and blocks until it answers; returns its result or raises its error.

        On ``timeout`` (seconds) or KeyboardInterrupt, sends ``$/cancelRequest`` for it, then raises
        (RequestTimeout, after up to ``cancel_grace`` seconds for the daemon's answer so that the
        state the cancellation resets is current; KeyboardInterrupt at once).
        """
        pending = self.send_request(method, params, on_result, on_error)
        return self.wait(pending, timeout)  # type: ignore[arg-type]

    def wait(self, pending: SyncPending, timeout: Optional[float] = None) -> Any:
        """Blocks for a sent request's answer (see ``request``)."""
        try:
            answered = pending.wait(timeout)
        except BaseException:  # KeyboardInterrupt, SystemExit: give up the request, politely
            self.cancel(pending)
            raise
        if not answered:
            self.cancel(pending)
            error = RequestTimeout(pending.method, pending.id, timeout or 0.0)
            if pending.wait(self.cancel_grace):
                if isinstance(pending.error, BinderyError):
                    error.cancellation = pending.error
                elif pending.error is None:
                    error.late_result = pending.result
            raise error
        if pending.error is not None:
            raise pending.error
        return pending.result

    # Reading.

    def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        reason = ""
        try:
            fd = stdout.fileno()
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    self.decoder.finish()
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
            logger.exception("bindery: the reader thread failed")
            self._kill()
        finally:
            self._connection_lost(reason)

    def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            for raw in iter(stderr.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._stderr.append(line)
                daemon_logger.debug("%s", line)
        except (OSError, ValueError):
            pass

    def _connection_lost(self, reason: str) -> None:
        try:
            returncode: Optional[int] = self.process.wait(timeout=2.0)
        except subprocess.TimeoutExpired:
            returncode = None  # closed its output but still runs
        self._stderr_thread.join(1.0)  # its last lines belong in the error
        clean = self._closing and not reason
        self._failure_args = (returncode, "closed" if clean else reason)
        self._lost.set()
        self.fail_all(self.failure)
        for handler in list(self.on_lost):
            try:
                handler(None if clean else self.failure())
            except Exception:
                logger.exception("bindery: a connection-lost handler raised")

    # Ending.

    def close(self, timeout: float = 5.0) -> Optional[int]:
        """shutdown, exit, then waits for the process (killing it after ``timeout``); its exit code."""
        if self._closing:
            self._reader_thread.join(timeout)
            return self.process.returncode
        self._closing_thread = threading.current_thread()
        self._closing = True
        try:
            if self._failure_args is None:
                try:
                    self.request("shutdown", timeout=timeout)
                    self.notify("exit")
                except Exception:
                    logger.debug("bindery: shutdown failed", exc_info=True)
            self._close_stdin()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                logger.warning("bindery: binderyd did not exit in %gs; killing it", timeout)
                self._kill()
        except BaseException:
            self._kill()
            raise
        finally:
            self._reader_thread.join(timeout)
            self._stderr_thread.join(timeout)
            for stream in (self.process.stdout, self.process.stderr):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
        return self.process.returncode

    def kill(self) -> None:
        """Kills the daemon at once (pending requests fail with DaemonExited)."""
        self._kill()

    def _kill(self) -> None:
        try:
            if self.process.poll() is None:
                self.process.kill()
        except OSError:
            pass

    def _close_stdin(self) -> None:
        try:
            if self.process.stdin is not None:
                with self._write_lock:
                    self.process.stdin.close()
        except OSError:
            pass
