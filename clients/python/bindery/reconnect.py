"""Reconnecting to a shared daemon that died (protocol.md, "Shared daemon"): when the daemon on the
socket ends under a client, the client connects again on its own, with backoff, starting a daemon
when none answers, and reattaches its keyed sessions (hub.py's ``_reconnect_flow``). Said on the
``bindery`` logger (stderr by default) and to ``on_connection`` callbacks. A daemon the client
spawned over pipes is its own child and is not reconnected.
"""
from __future__ import annotations

import logging
import threading
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional

from .connection import _perform
from .endpoint import RUN, Flow, Stepper

__all__ = ["ConnectionEvent", "Reconnector", "delays", "say", "SLEEP", "CONNECT", "RUN"]

logger = logging.getLogger("bindery")

#: Seconds before each attempt, as the web page's connection.js: then every MAX_DELAY.
BACKOFF = (0.25, 0.5, 1.0, 2.0, 4.0)
MAX_DELAY = 5.0
#: The reconnect flow's own effects (hub.py's ``_reconnect_flow``).
SLEEP = "sleep"
CONNECT = "connect"


def delays() -> Iterator[float]:
    yield from BACKOFF
    while True:
        yield MAX_DELAY


class ConnectionEvent(NamedTuple):
    """What ``Client.on_connection`` callbacks are told, in order, on the callback thread."""

    #: "lost" (the daemon ended: ``error`` says how), "reconnecting" (the next attempt in ``delay``
    #: seconds; ``error``: why the last one failed, None before the first), "reconnected".
    kind: str
    #: The socket's path.
    path: str
    delay: float = 0.0
    attempt: int = 0
    error: Optional[BaseException] = None
    #: "reconnected": the keyed sessions reopened (the same Session objects, new ids).
    reopened: List[Any] = []
    #: "reconnected": the sessions that did not come back (unkeyed ones, a key whose reopen failed).
    closed: List[Any] = []


def say(event: ConnectionEvent) -> None:
    """The log line of an event: warnings, so that Python's default handler prints them on stderr."""
    if event.kind == "lost":
        logger.warning("bindery: %s", event.error)
    elif event.kind == "reconnecting":
        logger.warning("bindery: reconnecting to %s in %g s…", event.path, event.delay)
    else:
        logger.warning("bindery: reconnected to %s; keyed sessions reopened: %d, sessions closed: %d",
                       event.path, len(event.reopened), len(event.closed))


class Reconnector:
    """Runs the reconnect flow of one sync client on a thread of its own, blocking for each effect;
    ``connect()`` (the client's) makes a new connection."""

    def __init__(self, connect: Callable[[], Any]) -> None:
        self._stop = threading.Event()
        self._ops: Dict[str, Callable[..., Any]] = {
            SLEEP: self._stop.wait, CONNECT: connect, RUN: lambda connection, flow: connection.run(flow)}
        self._thread: Optional[threading.Thread] = None
        # A thread is made and started, or the client stopped, never between the two: the
        # connection's reader (start) and the client's close (stop) run on different threads.
        self._lock = threading.Lock()

    def start(self, flow: Flow[None]) -> None:
        """The connection is lost: reconnects (once at a time; never after ``stop``)."""
        with self._lock:
            if self._stop.is_set():
                return
            last = self._thread
        if last is not None and last is not threading.current_thread():
            last.join()  # the last loop, ending: it made the connection now lost
        with self._lock:
            if self._stop.is_set():
                return
            self._thread = threading.Thread(target=self._run, args=(flow,), name="bindery-reconnect", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """No more attempts (the client closes); waits for one under way."""
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self, flow: Flow[None]) -> None:
        stepper = Stepper(flow)
        while stepper.effect is not None:
            stepper.settle(_perform(self._ops[stepper.effect[0]], stepper.effect[1:]))
