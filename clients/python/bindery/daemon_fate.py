"""How a shared daemon ended, seen by a client that is not its parent: whether it is gone or on
its way out (/proc), and what its supervisor (``binderyd --supervise-listen=PATH``, which every
client that starts a daemon uses) wrote to ``PATH.exit``: ``pid N: killed by signal 9`` or
``pid N: exited with code 0``."""
from __future__ import annotations

import time
from typing import List, Optional, Tuple

from .errors import DaemonExited

__all__ = ["is_ending", "recorded", "told", "with_fate"]

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
