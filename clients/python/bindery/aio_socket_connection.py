"""The asyncio transport to a shared daemon (``binderyd --listen``): a Unix-domain socket instead of
a child's pipes. See socket_connection.py for the path (``auto``) and starting a daemon."""
from __future__ import annotations

import asyncio
import socket
from functools import partial
from typing import Optional, Sequence

from .aio_connection import AsyncConnection
from .daemon_fate import SocketEnd
from .endpoint import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, READ_SIZE, StdinClosed
from .framing import CONTENT_LENGTH
from .socket_connection import _peer_pid, connect_socket

__all__ = ["AsyncSocketConnection"]


class AsyncSocketConnection(SocketEnd, AsyncConnection):  # type: ignore[misc]
    """JSON-RPC over a connected Unix socket, on the loop that opened it. The connection "exits"
    (code 0) when the daemon closes it; killing closes the socket."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, *,
                 framing: str = CONTENT_LENGTH, stderr_lines: int = DEFAULT_STDERR_LINES,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        sock = writer.get_extra_info("socket")
        SocketEnd.__init__(self, path, _peer_pid(sock) if sock is not None else -1, framing, stderr_lines, cancel_grace)
        self._reader = reader
        self._writer = writer
        self._lost = asyncio.Event()
        self._ended = asyncio.Event()
        self._stderr_task = asyncio.ensure_future(asyncio.sleep(0))  # a socket has no stderr: a task already done
        self._reader_task = asyncio.ensure_future(self.run(self.read_flow()))

    @classmethod
    async def open(cls, path: str, daemon: Optional[str], args: Sequence[str], *, start: bool = True,
                   framing: str = CONTENT_LENGTH, stderr_lines: int = DEFAULT_STDERR_LINES,
                   cancel_grace: float = DEFAULT_CANCEL_GRACE) -> "AsyncSocketConnection":
        """Connects (starting a daemon when none answers, off the loop) and starts reading."""
        loop = asyncio.get_running_loop()
        sock: socket.socket = await loop.run_in_executor(None, partial(connect_socket, path, daemon, args, start=start))
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=1 << 24)
        return cls(reader, writer, path, framing=framing, stderr_lines=stderr_lines, cancel_grace=cancel_grace)

    async def _op_drain(self) -> None:
        try:
            await self._writer.drain()
        except (ConnectionError, BrokenPipeError):
            raise StdinClosed() from None

    async def _op_wait_exit(self, timeout: Optional[float]) -> Optional[int]:
        try:
            await asyncio.wait_for(self._ended.wait(), timeout)
        except asyncio.TimeoutError:
            return None
        await asyncio.get_running_loop().run_in_executor(None, self.learn_fate)  # it may wait for the record
        return self._exit_status

    async def _op_join_readers(self, timeout: float) -> None:
        if self._reader_task is not asyncio.current_task():
            await asyncio.wait([self._reader_task], timeout=timeout)
        self._writer.close()

    async def _op_read(self) -> bytes:
        try:
            chunk = await self._reader.read(READ_SIZE)
        except (ConnectionError, OSError):
            chunk = b""
        if not chunk:
            self._ended.set()
        return chunk

    def _transmit(self, data: bytes) -> None:
        if self._writer.is_closing():
            raise StdinClosed()
        self._writer.write(data)

    def _close_stdin(self) -> None:
        if not self._writer.is_closing() and self._writer.can_write_eof():
            try:
                self._writer.write_eof()
            except OSError:
                pass

    def _kill(self) -> None:
        transport = self._writer.transport
        if not transport.is_closing():
            transport.abort()
