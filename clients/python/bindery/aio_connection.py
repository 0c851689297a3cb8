"""The asyncio transport: binderyd as an asyncio subprocess, one reader task, one stderr task.

It performs the core's effects (endpoint.py) by awaiting; every rule about what to wait for, and
for how long, is in the core.
"""
from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Awaitable, Mapping, Optional, Sequence, Tuple, TypeVar

from .endpoint import (
    DEFAULT_CANCEL_GRACE, DEFAULT_CLOSE_TIMEOUT, DEFAULT_STDERR_LINES, READ_SIZE, Endpoint, Flow, StdinClosed,
    Stepper,
)
from .framing import CONTENT_LENGTH
from .rpc import Pending

if TYPE_CHECKING:
    from .aio import AsyncClient, AsyncSession

__all__ = ["AsyncConnection", "AsyncPending"]

T = TypeVar("T")


class AsyncPending(Pending):
    """A Pending a coroutine can await; the future only signals (outcome is on the Pending)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.future: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()

    def _wake(self) -> None:
        if not self.future.done():
            self.future.set_result(None)


class AsyncConnection(Endpoint):
    """JSON-RPC over an asyncio child process. All methods must run on the loop that started it."""

    pending_class = AsyncPending

    def __init__(self, process: "asyncio.subprocess.Process", argv: Sequence[str], framing: str = CONTENT_LENGTH,
                 stderr_lines: int = DEFAULT_STDERR_LINES, cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        super().__init__(argv, framing, stderr_lines, cancel_grace)
        self.process = process
        self._lost = asyncio.Event()
        self._stderr_task = asyncio.ensure_future(self.run(self.stderr_flow()))
        self._reader_task = asyncio.ensure_future(self.run(self.read_flow()))

    @classmethod
    async def start(cls, argv: Sequence[str], *, framing: str = CONTENT_LENGTH,
                    env: Optional[Mapping[str, str]] = None, cwd: Optional[str] = None,
                    stderr_lines: int = DEFAULT_STDERR_LINES,
                    cancel_grace: float = DEFAULT_CANCEL_GRACE) -> "AsyncConnection":
        """Spawns the daemon and starts reading."""
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env=dict(env) if env is not None else None, cwd=cwd)
        return cls(process, argv, framing, stderr_lines, cancel_grace)

    @property
    def pid(self) -> int:
        return self.process.pid

    # The API: flows run on the calling task.

    async def close(self, timeout: float = DEFAULT_CLOSE_TIMEOUT) -> Optional[int]:
        """shutdown, exit, then awaits the process (killing it after ``timeout``); its exit code."""
        return await self.run(self.close_flow(timeout))

    async def run(self, flow: Flow[T]) -> T:
        """Runs a flow on the current task, awaiting each effect."""
        stepper = Stepper(flow)
        while stepper.effect is not None:
            stepper.settle(await _perform(getattr(self, "_op_" + stepper.effect[0]), stepper.effect[1:]))
        return stepper.value  # type: ignore[no-any-return]

    # Effects.

    async def _op_wait_answer(self, pending: AsyncPending, timeout: Optional[float]) -> bool:
        try:
            # shield: the future must survive a timeout, for the grace wait that may follow
            await asyncio.wait_for(asyncio.shield(pending.future), timeout)
            return True
        except asyncio.TimeoutError:
            return False

    async def _op_drain(self) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            await stdin.drain()
        except (ConnectionError, BrokenPipeError):
            raise StdinClosed() from None

    async def _op_wait_lost(self, timeout: float) -> bool:
        return await _within(self._lost.wait(), timeout)

    async def _op_wait_exit(self, timeout: Optional[float]) -> Optional[int]:
        await _within(self.process.wait(), timeout)
        return self.process.returncode

    async def _op_join_stderr(self, timeout: float) -> None:
        await _within(asyncio.shield(self._stderr_task), timeout)

    async def _op_join_readers(self, timeout: float) -> None:
        current = asyncio.current_task()
        tasks = [task for task in (self._reader_task, self._stderr_task) if task is not current]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)

    async def _op_read(self) -> bytes:
        assert self.process.stdout is not None
        return await self.process.stdout.read(READ_SIZE)

    async def _op_read_stderr_line(self) -> bytes:
        assert self.process.stderr is not None
        try:
            return await self.process.stderr.readline()
        except ValueError:  # a line beyond the stream's limit (dropped by readline): keep reading
            return b"[a stderr line too long to keep]\n"

    async def _op_wait_change(self, session: "AsyncSession", seen: int, timeout: Optional[float] = None) -> None:
        await _within(session._wait_for_change(seen), timeout)

    async def _op_wait_reconnect(self, client: "AsyncClient", timeout: Optional[float]) -> None:
        await client.wait_connected(timeout)

    async def _op_run(self, connection: "AsyncConnection", flow: Flow[T]) -> T:
        return await connection.run(flow)

    # The transport: the asyncio pipe buffers, so writes never block; DRAIN applies back-pressure.

    def _transmit(self, data: bytes) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        if stdin.is_closing():
            raise StdinClosed()
        stdin.write(data)

    def _close_stdin(self) -> None:
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            try:
                stdin.close()
            except OSError:
                pass

    def _kill(self) -> None:
        try:
            if self.process.returncode is None:
                self.process.kill()
        except (OSError, ProcessLookupError):
            pass

    def _returncode(self) -> Optional[int]:
        return self.process.returncode

    def _actor(self) -> object:
        try:
            return asyncio.current_task()
        except RuntimeError:
            return None

    def _signal_lost(self) -> None:
        self._lost.set()


async def _perform(op: Any, args: Tuple[Any, ...]) -> Tuple[Any, Optional[BaseException]]:
    try:
        return await op(*args), None
    except BaseException as error:  # handed to the flow, which decides (CancelledError: cancel)
        return None, error


async def _within(awaitable: Awaitable[Any], timeout: Optional[float]) -> bool:
    """Awaits ``awaitable`` for at most ``timeout`` seconds (None: no limit); whether it finished."""
    try:
        await asyncio.wait_for(awaitable, timeout)
        return True
    except asyncio.TimeoutError:
        return False
