"""The thread that runs user callbacks, so that the reader never waits for one."""
from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable, Optional, Tuple

__all__ = ["CallbackDispatcher"]

logger = logging.getLogger("bindery")

_STOP = object()


class CallbackDispatcher:
    """Runs callbacks one at a time, in submission order, on one dedicated thread.

    The queue is unbounded: a slow callback delays the ones after it but never loses, reorders
    or blocks anything. A callback that raises is logged and the next one runs.
    """

    def __init__(self, name: str = "bindery-callbacks") -> None:
        self._name = name
        self._queue: "queue.Queue[Any]" = queue.Queue()
        self._thread: Optional[threading.Thread] = None
        self._start_lock = threading.Lock()
        self._stopped = False

    def submit(self, callback: Callable[..., Any], *args: Any) -> None:
        """Queues ``callback(*args)``; starts the thread on first use."""
        if self._stopped:
            return
        if self._thread is None:
            with self._start_lock:
                if self._thread is None:
                    self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                    self._thread.start()
        self._queue.put((callback, args))

    def drain(self, timeout: Optional[float] = None) -> bool:
        """Waits until every callback queued so far has run; False on timeout.

        From a callback itself it returns at once (waiting would deadlock).
        """
        if self._thread is None or self.on_dispatcher_thread() or self._stopped:
            return True
        done = threading.Event()
        self._queue.put((done.set, ()))
        return done.wait(timeout)

    def on_dispatcher_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def stop(self, timeout: Optional[float] = 5.0) -> None:
        """Runs what is queued, then ends the thread (not waiting when called from a callback)."""
        if self._stopped:
            return
        self._stopped = True
        if self._thread is None:
            return
        self._queue.put(_STOP)
        if not self.on_dispatcher_thread():
            self._thread.join(timeout)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            callback, args = item  # type: Tuple[Callable[..., Any], Tuple[Any, ...]]
            try:
                callback(*args)
            except Exception:
                logger.exception("bindery: a change callback raised")
