"""The thread transport to a shared daemon: a Unix-domain socket instead of a child's pipes.

``binderyd --listen PATH`` serves any number of clients on PATH, each speaking the protocol
exactly as on stdio; a client connected here works like a spawned one, sessions opened with a
``key`` being shared with the daemon's other clients. ``auto`` is the daemon's per-user path
(``$XDG_RUNTIME_DIR/bindery/daemon.sock``, else ``/tmp/bindery-UID/daemon.sock``); when nothing
answers there, a daemon is started (``--listen PATH --idle-exit 60`` and the client's ``args``,
detached, its stderr in ``PATH.log``), as ``binderyd --remote`` does. Before the first byte the
socket is verified (socket_trust.py): its directory and itself the user's alone, its listener the
user's.
"""
from __future__ import annotations

import os
import socket
import struct
import subprocess
import threading
import time
from typing import Optional, Sequence

from .connection import Connection
from .daemon_fate import SocketEnd
from .endpoint import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, READ_SIZE, StdinClosed
from .errors import DaemonExited
from .framing import CONTENT_LENGTH
from .socket_trust import check_directory, verify_socket

__all__ = ["SocketConnection", "socket_path", "connect_socket"]


def socket_path(spelled: str) -> str:
    """``auto`` as the daemon resolves it, or the path given (made absolute)."""
    if spelled != "auto":
        return os.path.abspath(spelled)
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    if runtime.startswith("/"):
        return os.path.join(runtime, "bindery", "daemon.sock")
    return "/tmp/bindery-%d/daemon.sock" % os.getuid()


def connect_socket(path: str, daemon: Optional[str] = None, args: Sequence[str] = (),
                   start: bool = True, wait: float = 10.0) -> socket.socket:
    """A socket connected to the daemon at ``path``; starts one (``daemon`` is its executable)
    when nothing answers and ``start`` is true."""
    directory = os.path.dirname(path)
    if os.path.lexists(directory):
        check_directory(path)  # refused before anything is tried
    try:
        return _connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        if not start or daemon is None:
            raise
    os.makedirs(directory, mode=0o700, exist_ok=True)
    check_directory(path)
    arguments = list(args)
    if "--idle-exit" not in arguments:
        arguments = ["--idle-exit", "60", *arguments]
    fd = os.open(path + ".log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        # Under a supervisor (binderyd's own), which writes PATH.exit when the daemon ends: so a
        # daemon killed or crashed is reported as what it was.
        subprocess.Popen([daemon, "--supervise-listen=" + path, *arguments], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=fd, start_new_session=True)
    finally:
        os.close(fd)
    deadline = time.monotonic() + wait
    while True:
        try:
            return _connect(path)
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() > deadline:
                raise DaemonExited(None, [], "no binderyd answers on %s after starting one; see %s.log"
                                   % (path, path)) from None
            time.sleep(0.01)


def _connect(path: str) -> socket.socket:
    """Connected and verified (socket_trust.py) before the caller sends a byte."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
        verify_socket(path, sock)
    except BaseException:
        sock.close()
        raise
    return sock


class SocketConnection(SocketEnd, Connection):  # type: ignore[misc]
    """JSON-RPC over a connected Unix socket; thread-safe; requests may be pipelined.

    The connection "exits" (code 0) when the daemon closes it: after ``exit``, or when the daemon
    ends. There is no process to wait for or kill: killing closes the socket.
    """

    def __init__(self, sock: socket.socket, path: str, *, framing: str = CONTENT_LENGTH,
                 stderr_lines: int = DEFAULT_STDERR_LINES, cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        SocketEnd.__init__(self, path, _peer_pid(sock), framing, stderr_lines, cancel_grace)
        self.socket = sock
        self._write_lock = threading.Lock()
        self._lost = threading.Event()
        self._ended = threading.Event()
        self._start_threads(None)  # a socket has no stderr

    def _op_wait_exit(self, timeout: Optional[float]) -> Optional[int]:
        if not self._ended.wait(timeout):
            return None
        self.learn_fate()
        return self._exit_status

    def _op_join_readers(self, timeout: float) -> None:
        if self._reader_thread is not threading.current_thread():
            self._reader_thread.join(timeout)
        self.socket.close()

    def _op_read(self) -> bytes:
        try:
            chunk = self.socket.recv(READ_SIZE)
        except OSError:
            chunk = b""
        if not chunk:
            self._ended.set()
            # Nothing more comes: the descriptor goes now, not when the connection is collected
            # (a client that reconnects drops this one without closing it). Later writes fail as
            # on a closed socket.
            with self._write_lock:
                self.socket.close()
        return chunk

    def _transmit(self, data: bytes) -> None:
        try:
            with self._write_lock:
                self.socket.sendall(data)
        except OSError:
            raise StdinClosed() from None

    def _close_stdin(self) -> None:
        try:
            with self._write_lock:
                self.socket.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _kill(self) -> None:
        try:
            self.socket.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _peer_pid(sock: socket.socket) -> int:
    credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", credentials)[0])
