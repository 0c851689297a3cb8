"""The thread transport: binderyd as a child process, one reader thread, one stderr thread.

It performs the core's effects (endpoint.py) by blocking; every rule about what to wait for, and
for how long, is in the core.
"""
from __future__ import annotations

import os
import subprocess
import threading
import time
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Tuple, TypeVar

from .endpoint import (
    DEFAULT_CANCEL_GRACE, DEFAULT_CLOSE_TIMEOUT, DEFAULT_STDERR_LINES, READ_SIZE, Endpoint, Flow, StdinClosed,
    Stepper,
)
from .framing import CONTENT_LENGTH
from .rpc import Pending

if TYPE_CHECKING:
    from .client import Client
    from .session import Session

__all__ = ["Connection", "SyncPending", "DEFAULT_CANCEL_GRACE", "DEFAULT_STDERR_LINES"]

T = TypeVar("T")
_WAIT_SLICE = 0.2  # waits are sliced so that Ctrl-C is seen promptly on every platform


def _sliced_wait(wait: Any, done: Any, timeout: Optional[float]) -> bool:
    """``wait(seconds)`` in slices until ``done()`` or ``timeout`` (None: forever); returns ``done()``."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while not done():
        remaining = _WAIT_SLICE if deadline is None else min(_WAIT_SLICE, deadline - time.monotonic())
        if remaining <= 0:
            break
        wait(remaining)
    return bool(done())


class SyncPending(Pending):
    """A Pending a thread can block on."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._event = threading.Event()

    def _wake(self) -> None:
        self._event.set()

    def wait(self, timeout: Optional[float]) -> bool:
        """True once answered; False when ``timeout`` (None: forever) passes first."""
        return _sliced_wait(self._event.wait, self._event.is_set, timeout)


class Connection(Endpoint):
    """JSON-RPC over a child's stdin/stdout; thread-safe; requests may be pipelined."""

    pending_class = SyncPending

    def __init__(self, argv: Sequence[str], *, framing: str = CONTENT_LENGTH,
                 env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                 stderr_lines: int = DEFAULT_STDERR_LINES, cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        super().__init__(argv, framing, stderr_lines, cancel_grace)
        self._write_lock = threading.Lock()
        self._lost = threading.Event()
        self.process = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            bufsize=0, env=dict(env) if env is not None else None, cwd=cwd)
        self._start_threads(self.stderr_flow())

    def _start_threads(self, stderr: Optional[Flow[None]]) -> None:
        """Starts the reader and, for a daemon with a stderr to drain (`stderr`), its reader too."""
        self._stderr_thread = threading.Thread(target=self.run if stderr else (lambda: None),
                                               args=(stderr,) if stderr else (),
                                               name="bindery-stderr", daemon=True)
        self._reader_thread = threading.Thread(target=self.run, args=(self.read_flow(),),
                                               name="bindery-reader", daemon=True)
        self._stderr_thread.start()
        self._reader_thread.start()

    @property
    def pid(self) -> int:
        return self.process.pid

    # The API: flows run to completion on the calling thread.

    def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> Optional[int]:
        """shutdown, exit, then waits for the process (killing it after ``timeout``); its exit code."""
        return self.run(self.close_flow(timeout))

    def run(self, flow: Flow[T]) -> T:
        """Runs a flow on this thread, blocking for each effect."""
        stepper = Stepper(flow)
        while stepper.effect is not None:
            stepper.settle(_perform(getattr(self, "_op_" + stepper.effect[0]), stepper.effect[1:]))
        return stepper.value  # type: ignore[no-any-return]

    # Effects.

    def _op_wait_answer(self, pending: SyncPending, timeout: Optional[float]) -> bool:
        return pending.wait(timeout)

    def _op_drain(self) -> None:
        pass  # writes block until the pipe takes them

    def _op_wait_lost(self, timeout: float) -> bool:
        return self._lost.wait(timeout)

    def _op_wait_exit(self, timeout: Optional[float]) -> Optional[int]:
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def _op_join_stderr(self, timeout: float) -> None:
        self._stderr_thread.join(timeout)

    def _op_join_readers(self, timeout: float) -> None:
        for thread in (self._reader_thread, self._stderr_thread):
            if thread is not threading.current_thread():
                thread.join(timeout)
        for stream in (self.process.stdout, self.process.stderr):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    def _op_read(self) -> bytes:
        assert self.process.stdout is not None
        return os.read(self.process.stdout.fileno(), READ_SIZE)

    def _op_read_stderr_line(self) -> bytes:
        assert self.process.stderr is not None
        return self.process.stderr.readline()

    def _op_wait_change(self, session: "Session", seen: int, timeout: Optional[float] = None) -> None:
        session._wait_for_change(seen, timeout)

    def _op_wait_reconnect(self, client: "Client", timeout: Optional[float]) -> None:
        client.wait_connected(timeout)

    def _op_run(self, connection: "Connection", flow: Flow[T]) -> T:
        return connection.run(flow)

    # The transport.

    def _transmit(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(data)
                stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            raise StdinClosed() from None

    def _close_stdin(self) -> None:
        try:
            if self.process.stdin is not None:
                with self._write_lock:
                    self.process.stdin.close()
        except OSError:
            pass

    def _kill(self) -> None:
        try:
            if self.process.poll() is None:
                self.process.kill()
        except OSError:
            pass

    def _returncode(self) -> Optional[int]:
        return self.process.poll()

    def _actor(self) -> object:
        return threading.current_thread()

    def _signal_lost(self) -> None:
        self._lost.set()


def _perform(op: Any, args: Tuple[Any, ...]) -> Tuple[Any, Optional[BaseException]]:
    try:
        return op(*args), None
    except BaseException as error:  # handed to the flow, which decides (KeyboardInterrupt: cancel)
        return None, error
