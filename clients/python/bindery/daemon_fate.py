"""How a shared daemon ended, seen by a client that is not its parent: whether it is gone or on
its way out (/proc), and what its supervisor (``binderyd --supervise-listen=PATH``, which every
client that starts a daemon uses) wrote to ``PATH.exit``: ``pid N: killed by signal 9`` or
``pid N: exited with code 0``. ``SocketEnd`` is what both socket transports (thread and asyncio)
keep of it."""
from __future__ import annotations

import time
from typing import Any, List, Optional, Tuple

from .endpoint import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, Endpoint
from .errors import DaemonExited

__all__ = ["SocketEnd", "is_ending", "recorded", "told", "with_fate"]

PF_EXITING = 0x4


def is_ending(pid: int) -> bool:
    """No such process, a zombie, or exiting (its descriptors close before it is a zombie)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return fields[0] in ("Z", "X", "x") or int(fields[6]) & PF_EXITING != 0


def recorded(pid: int, path: str, wait: float = 3.0) -> Tuple[Optional[int], List[str]]:
    """The daemon's exit status as subprocess says it (-9: killed by signal 9; None: unknown, as
    for a daemon started by hand) and the last lines of its log."""
    prefix = "pid %d: " % pid
    deadline = time.monotonic() + wait
    status: Optional[int] = None
    while status is None and time.monotonic() < deadline:
        try:
            with open(path + ".exit") as handle:
                line = handle.readline().strip()
        except OSError:
            line = ""
        if line.startswith(prefix):
            words = line[len(prefix):].split()
            status = -int(words[-1]) if words[0] == "killed" else int(words[-1])
        else:
            time.sleep(0.01)
    try:
        with open(path + ".log", errors="replace") as handle:
            tail = handle.read().splitlines()[-20:]
    except OSError:
        tail = []
    return status, tail


def told(pid: int, path: str) -> str:
    """What a client of the socket says of the daemon that ended under it."""
    return "the shared daemon on %s (pid %d); its log: %s.log" % (path, pid, path)


def with_fate(error: BaseException, fate: Optional[str]) -> BaseException:
    """A connection's failure, saying which daemon ended when it is a DaemonExited without a reason."""
    if isinstance(error, DaemonExited) and not error.reason and fate is not None:
        return DaemonExited(error.returncode, error.stderr, fate)
    return error


class SocketEnd(Endpoint):
    """A connection to a shared daemon's socket (mixed into both socket transports): it "exits"
    (code 0) when the daemon closes it, unless the daemon itself ended, which ``learn_fate`` finds
    out. There is no process: ``pid`` is -1."""

    _ended: Any  # a threading.Event or an asyncio.Event: set when the daemon closed the connection

    def __init__(self, path: str, daemon_pid: int, framing: str, stderr_lines: int = DEFAULT_STDERR_LINES,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE) -> None:
        Endpoint.__init__(self, ["binderyd", "--listen", path], framing, stderr_lines, cancel_grace)
        self.path = path
        self.process = None
        self._daemon_pid = daemon_pid
        self._exit_status: Optional[int] = 0
        self._fate: Optional[str] = None

    @property
    def pid(self) -> int:
        return -1

    def learn_fate(self) -> None:
        """When the daemon itself ended (not just this connection): how, from its supervisor's
        record. Blocks (up to ``recorded``'s wait)."""
        if self._fate is None and not self._closing and self._daemon_pid > 0 and is_ending(self._daemon_pid):
            status, tail = recorded(self._daemon_pid, self.path)
            self._exit_status = status
            self._stderr.extend(tail)
            self._fate = told(self._daemon_pid, self.path)

    def failure(self) -> BaseException:
        return with_fate(super().failure(), self._fate)

    def _returncode(self) -> Optional[int]:
        return self._exit_status if self._ended.is_set() else None
