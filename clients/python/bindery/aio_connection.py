"""The asyncio transport: binderyd as an asyncio subprocess, one reader task, one stderr task."""
from __future__ import annotations

import asyncio
import collections
import logging
from typing import Any, Callable, Deque, List, Mapping, Optional, Sequence, Tuple

from .errors import BinderyError, ClientClosed, DaemonExited, FramingError, RequestTimeout
from .framing import CONTENT_LENGTH
from .rpc import ErrorHook, Pending, ResultHook, RpcPeer

__all__ = ["AsyncConnection", "AsyncPending"]

logger = logging.getLogger("bindery")
daemon_logger = logging.getLogger("bindery.daemon")


class AsyncPending(Pending):
    """A Pending a coroutine can await; the future only signals (outcome is on the Pending)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.future: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()

    def _wake(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


class AsyncConnection(RpcPeer):
    """JSON-RPC over an asyncio child process. All methods must run on the loop that started it."""

    pending_class = AsyncPending

    def __init__(self, process: "asyncio.subprocess.Process", argv: Sequence[str], framing: str,
                 stderr_lines: int, cancel_grace: float) -> None:
        super().__init__(framing)
        self.process = process
        self.argv = list(argv)
        self.cancel_grace = cancel_grace
        self._stderr: Deque[str] = collections.deque(maxlen=stderr_lines)
        self._failure_args: Optional[Tuple[Optional[int], str]] = None
        self._closing = False
        self._closing_task: Optional["asyncio.Task[Any]"] = None
        self._lost = asyncio.Event()
        #: Called once on the reader task when the connection ends, with the failure (or None).
        self.on_lost: List[Callable[[Optional[BaseException]], None]] = []
        self._stderr_task = asyncio.ensure_future(self._read_stderr())
        self._reader_task = asyncio.ensure_future(self._read_stdout())

    @classmethod
    async def start(cls, argv: Sequence[str], *, framing: str = CONTENT_LENGTH,
                    env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                    stderr_lines: int = 20, cancel_grace: float = 2.0) -> "AsyncConnection":
        """Spawns the daemon and starts reading."""
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=dict(env) if env is not None else None, cwd=cwd)
        return cls(process, argv, framing, stderr_lines, cancel_grace)

    # State.

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self._failure_args is None and not self._closing

    @property
    def stderr_tail(self) -> List[str]:
        return list(self._stderr)

    def failure(self) -> BaseException:
        if self._failure_args is None:
            return ClientClosed("the client is closed")
        returncode, reason = self._failure_args
        if reason == "closed":
            return ClientClosed("the client is closed (binderyd exited with code %s)" % returncode)
        return DaemonExited(returncode, self.stderr_tail, reason)

    def check_usable(self) -> None:
        if self._failure_args is not None:
            raise self.failure()
        if self._closing and _current_task() is not self._closing_task:
            raise ClientClosed("the client is closing")

    # Writing: the transport buffers, so writes never block; drain() applies back-pressure.

    def write(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if stdin.is_closing():
            raise self.failure() if self._failure_args is not None else ClientClosed("stdin is closed")
        stdin.write(data)

    async def drain(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            await stdin.drain()
        except (ConnectionError, BrokenPipeError):
            try:
                await asyncio.wait_for(self._lost.wait(), 2.0)
            except asyncio.TimeoutError:
                pass
            raise self.failure() from None

    # Requests.

    async def request(self, method: str, params: Any = None, timeout: Optional[float] = None,
                      on_result: Optional[ResultHook] = None, on_error: Optional[ErrorHook] = None) -> Any:
        """Sends a request and awaits its answer (see Connection.request for timeouts and cancelling)."""
        pending = self.send_request(method, params, on_result, on_error)
        assert isinstance(pending, AsyncPending)
        await self.drain()
        return await self.wait(pending, timeout)

    async def wait(self, pending: AsyncPending, timeout: Optional[float] = None) -> Any:
        """Awaits a sent request's answer. Cancelling the awaiting task sends $/cancelRequest too."""
        try:
            # shield: the future must survive our timeout, for the grace wait below
            await asyncio.wait_for(asyncio.shield(pending.future), timeout)
        except asyncio.TimeoutError:
            self.cancel(pending)
            error = RequestTimeout(pending.method, pending.id, timeout or 0.0)
            try:
                await asyncio.wait_for(asyncio.shield(pending.future), self.cancel_grace)
            except asyncio.TimeoutError:
                pass
            else:
                if isinstance(pending.error, BinderyError):
                    error.cancellation = pending.error
                elif pending.error is None:
                    error.late_result = pending.result
            raise error from None
        except asyncio.CancelledError:
            self.cancel(pending)
            raise
        if pending.error is not None:
            raise pending.error
        return pending.result

    # Reading.

    async def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        reason = ""
        try:
            while True:
                chunk = await stdout.read(65536)
                if not chunk:
                    self.decoder.finish()
                    break
                self.receive(chunk)
        except FramingError as error:
            reason = "unreadable output: %s" % error
            logger.error("bindery: %s; stopping the daemon", reason)
            self._kill()
        except asyncio.CancelledError:
            self._kill()
            self._lost_now("the client's reader was cancelled", None)
            raise
        except Exception as error:
            reason = "client reader failed: %r" % (error,)
            logger.exception("bindery: the reader task failed")
            self._kill()
        await self._connection_lost(reason)

    async def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        try:
            while True:
                raw = await stderr.readline()
                if not raw:
                    return
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                self._stderr.append(line)
                daemon_logger.debug("%s", line)
        except (OSError, ValueError):
            pass

    async def _connection_lost(self, reason: str) -> None:
        returncode: Optional[int]
        try:
            returncode = await asyncio.wait_for(self.process.wait(), 2.0)
        except asyncio.TimeoutError:
            returncode = None
        try:
            await asyncio.wait_for(asyncio.shield(self._stderr_task), 1.0)
        except asyncio.TimeoutError:
            pass
        self._lost_now(reason, returncode)

    def _lost_now(self, reason: str, returncode: Optional[int]) -> None:
        if self._failure_args is not None:
            return
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

    async def close(self, timeout: float = 5.0) -> Optional[int]:
        """shutdown, exit, then awaits the process (killing it after ``timeout``); its exit code."""
        if self._closing:
            await asyncio.wait([self._reader_task], timeout=timeout)
            return self.process.returncode
        self._closing = True
        self._closing_task = _current_task()
        try:
            if self._failure_args is None:
                try:
                    await self.request("shutdown", timeout=timeout)
                    self.notify("exit")
                except Exception:
                    logger.debug("bindery: shutdown failed", exc_info=True)
            self._close_stdin()
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except asyncio.TimeoutError:
                logger.warning("bindery: binderyd did not exit in %gs; killing it", timeout)
                self._kill()
                await self.process.wait()
        except BaseException:
            self._kill()
            raise
        finally:
            await asyncio.wait([self._reader_task, self._stderr_task], timeout=timeout)
        return self.process.returncode

    def kill(self) -> None:
        """Kills the daemon at once (pending requests fail with DaemonExited)."""
        self._kill()

    def _kill(self) -> None:
        try:
            if self.process.returncode is None:
                self.process.kill()
        except (OSError, ProcessLookupError):
            pass

    def _close_stdin(self) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            try:
                stdin.close()
            except OSError:
                pass


def _current_task() -> Optional["asyncio.Task[Any]"]:
    try:
        return asyncio.current_task()
    except RuntimeError:
        return None
