"""The asyncio client: the same API as Client and Session, with ``await`` on every call."""
from __future__ import annotations

import asyncio
import inspect
import logging
from typing import (
    Any, Awaitable, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Type, TypeVar, Union, cast,
)

from .aio_connection import AsyncConnection, _perform
from .aio_socket_connection import AsyncSocketConnection
from .endpoint import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES, Flow, Stepper
from .framing import CONTENT_LENGTH
from .hub import Hub
from .reconnect import CONNECT, RUN, SLEEP
from .schema import Schema
from .state import MISSING, Changes, History, SessionBase, Snapshot

__all__ = ["AsyncClient", "AsyncSession", "ChangeStream"]

logger = logging.getLogger("bindery")

AsyncChangeCallback = Callable[[Changes], Union[None, Awaitable[None]]]
_END = object()  # ends a change stream
T = TypeVar("T")


class ChangeStream:
    """An async iterator over a session's change sets, from the moment it was created.

    Every change set is queued (unbounded), so a slow consumer loses nothing. It ends when the
    session or the client is closed, and raises DaemonExited if the daemon dies.
    """

    def __init__(self, session: "AsyncSession") -> None:
        self._session = session
        self._queue: "asyncio.Queue[Any]" = asyncio.Queue()
        session._streams.append(self._queue)
        if session.closed:
            self._queue.put_nowait(_END)

    def __aiter__(self) -> "ChangeStream":
        return self

    async def __anext__(self) -> Changes:
        item = await self._queue.get()
        if item is _END:
            self._queue.put_nowait(_END)  # stays ended
            self.close()
            raise StopAsyncIteration
        if isinstance(item, BaseException):
            self._queue.put_nowait(item)
            self.close()
            raise item
        return item  # type: ignore[no-any-return]

    def close(self) -> None:
        """Stops receiving change sets."""
        if self._queue in self._session._streams:
            self._session._streams.remove(self._queue)

    async def aclose(self) -> None:
        self.close()

    async def __aenter__(self) -> "ChangeStream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self.close()


class AsyncSession(SessionBase):
    """A session opened by ``AsyncClient.open``; ``state`` is a live dict kept current."""

    def __init__(self, client: "AsyncClient", session_id: int, type_name: str, schema: Optional[Schema],
                 key: Optional[str], state: Dict[str, Any], revision: int) -> None:
        super().__init__(client, session_id, type_name, schema, key, state, revision)
        self._client = client
        self._streams: List["asyncio.Queue[Any]"] = []
        self._touched: Optional[asyncio.Event] = None

    async def set(self, field: str, value: Any, timeout: Optional[float] = None, *,
            expected_revision: Optional[int] = None) -> int:
        """Writes a field (setField); returns the revision. See Session.set."""
        return await self._client._run(self._call("setField", timeout,
            lambda t: self._set_flow(field, value, t, expected_revision)))

    async def invoke(self, command: str, args: Any = MISSING, timeout: Optional[float] = None, *,
                     native: bool = False, expected_revision: Optional[int] = None) -> Any:
        """Runs a command and returns its result (native values with ``native=True``). See
        Session.invoke; cancelling the task cancels it."""
        return await self._client._run(self._call("invoke", timeout,
            lambda t: self._invoke_flow(command, args, t, native, expected_revision)))

    async def refresh(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Re-reads the whole state (session/state); returns ``state``."""
        return await self._client._run(self._call("session/state", timeout, self._refresh_flow))

    async def undo(self, timeout: Optional[float] = None) -> History:
        """Undoes the last step of this session's writes (session/undo). See Session.undo."""
        return await self._client._run(self._call("session/undo", timeout,
            lambda t: self._history_flow("session/undo", t)))

    async def redo(self, timeout: Optional[float] = None) -> History:
        """Writes again what the last undo took back (session/redo). See Session.redo."""
        return await self._client._run(self._call("session/redo", timeout,
            lambda t: self._history_flow("session/redo", t)))

    async def take_snapshot(self, timeout: Optional[float] = None) -> Snapshot:
        """The daemon's snapshot of this session (session/snapshot), for ``open(..., restore=)``."""
        return await self._client._run(self._call("session/snapshot", timeout, self._take_snapshot_flow))

    async def observe(self, names: Iterable[str], timeout: Optional[float] = None) -> Dict[str, Any]:
        """Pushes only these members from now on (session/observe); returns the new ``state``."""
        return await self._client._run(self._call("session/observe", timeout, lambda t: self._observe_flow(names, t)))

    async def close(self, timeout: Optional[float] = None) -> None:
        """Closes the session. Idempotent."""
        await self._client._run(self._call("session/close", timeout, self._close_flow))

    def on_change(self, callback: AsyncChangeCallback) -> Callable[[], None]:
        """Calls ``callback(changes)`` (a function or a coroutine function) for every change set, in
        order, from the client's callback task (one per client; coroutines are awaited one at a
        time). Returns a function that removes it."""
        return self._add_listener(callback)

    def changes(self) -> ChangeStream:
        """``async for changes in session.changes():`` every change set from now on, in order.

        The iteration ends when the session (or the client) is closed.
        """
        return ChangeStream(self)

    async def wait_until(self, predicate: Callable[[Dict[str, Any]], bool],
                         timeout: Optional[float] = None) -> Dict[str, Any]:
        """Waits until ``predicate(state)`` is true (checked at once, then after every change)."""
        return await self._client._run(self._wait_until_flow(predicate, timeout))

    # Called by the client's reader task and its flows.

    def _notify_waiters(self) -> None:
        # A fresh event per change: waiters woken by this one re-check and wait on the next.
        if self._touched is not None:
            self._touched.set()
            self._touched = None

    async def _wait_for_change(self, seen: int) -> None:
        while self._version == seen:
            if self._touched is None:
                self._touched = asyncio.Event()
            await self._touched.wait()

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._client.alive:
            await self.close()


class AsyncClient(Hub[AsyncSession]):
    """The asyncio Client: ``async with AsyncClient() as client:``. See Client for the arguments
    (``socket="auto"`` connects to the shared daemon, as there, and reconnects when it dies)."""

    def __init__(self, daemon: Optional[str] = None, args: Optional[Sequence[str]] = None, *,
                 framing: str = CONTENT_LENGTH, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None, initialize: bool = True, timeout: Optional[float] = None,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE, stderr_lines: int = DEFAULT_STDERR_LINES,
                 splices: bool = True, socket: Optional[str] = None, start: bool = True,
                 display: bool = False) -> None:
        super().__init__(daemon, args, timeout, splices, display, socket)
        self._options: Dict[str, Any] = dict(framing=framing, env=env, cwd=cwd, stderr_lines=stderr_lines,
                                             cancel_grace=cancel_grace)
        self._start_daemon = start
        self._args = list(args or ())
        self._initialize = initialize
        self._callbacks: "Optional[asyncio.Queue[Any]]" = None
        self._callback_task: "Optional[asyncio.Task[None]]" = None
        self._reconnecting: "Optional[asyncio.Task[None]]" = None

    async def start(self) -> "AsyncClient":
        """Spawns the daemon and sends initialize (``async with`` does this)."""
        if self._peer is not None:
            return self
        if self._socket_path is not None:
            # A shared daemon (binderyd --listen): connect, starting one when none answers.
            self._attach(await self._connect())
        else:
            self._attach(await AsyncConnection.start(self._argv, **self._options))
        await self._run(self._start_flow(self._initialize))
        return self

    async def _connect(self) -> AsyncSocketConnection:
        assert self._socket_path is not None
        # The daemon's supervisor keeps auto's keyed forms in the user's state directory.
        return await AsyncSocketConnection.open(
            self._socket_path, self.daemon_path, list(self._args), start=self._start_daemon,
            framing=self._options["framing"], stderr_lines=self._options["stderr_lines"],
            cancel_grace=self._options["cancel_grace"])

    @classmethod
    async def connect(cls, *args: Any, **kwargs: Any) -> "AsyncClient":
        """``await AsyncClient.connect(...)``: construct and start."""
        return await cls(*args, **kwargs).start()

    async def open(self, type: str, args: Optional[Dict[str, Any]] = None,
                   observe: Optional[Sequence[str]] = None, key: Optional[str] = None,
                   timeout: Optional[float] = None, *, schema_hash: Optional[str] = None,
                   restore: Optional[Mapping[str, Any]] = None) -> AsyncSession:
        """Opens a session (session/open). See Client.open."""
        return await self._run(self._call_when_connected(
            None, "session/open", timeout,
                lambda t: self._open_flow(type, args, observe, key, t, schema_hash, restore)))

    async def describe(self, type: Optional[str] = None, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """The schemas (viewModels/describe)."""
        return await self._run(self._describe_flow(type, timeout))

    async def advance_clock(self, ms: int, timeout: Optional[float] = None) -> int:
        """Moves a --deterministic daemon's virtual clock (clock/advance); returns its time in ms."""
        return await self._run(self._advance_clock_flow(ms, timeout))

    async def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its result."""
        return await self._run(self._call_flow(method, params, timeout))

    async def wait_connected(self, timeout: Optional[float] = None) -> bool:
        """As ``Client.wait_connected``."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not (self.alive or self._closed) and (deadline is None or loop.time() < deadline):
            await asyncio.sleep(0.02)
        return self.alive

    async def drain_callbacks(self) -> None:
        """Waits until every on_change callback queued so far has run.

        From a callback itself it returns at once (waiting for itself would never end).
        """
        task = self._callback_task
        if self._callbacks is not None and task is not None and not task.done() \
                and asyncio.current_task() is not task:
            await self._callbacks.join()

    @property
    def connection(self) -> AsyncConnection:
        return self._aconn()

    @property
    def process(self) -> "asyncio.subprocess.Process":
        return self._aconn().process

    async def close(self, timeout: float = 5.0) -> Optional[int]:
        """Sends shutdown and exit, awaits the daemon and the queued callbacks; its exit code."""
        if self._peer is None:
            return None
        self._closed = True
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            await asyncio.wait([self._reconnecting], timeout=timeout)
        code = await self._aconn().close(timeout)
        task = self._callback_task
        if task is not None:
            assert self._callbacks is not None
            self._callbacks.put_nowait(_END)
            if task is not asyncio.current_task():  # closing from a callback: it ends after it
                await asyncio.wait([task], timeout=timeout)
        return code

    async def __aenter__(self) -> "AsyncClient":
        return await self.start()

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], *rest: Any) -> None:
        await self.close()

    # Internals.

    def _aconn(self) -> AsyncConnection:
        return cast(AsyncConnection, self._conn())  # raises ClientClosed when not started

    async def _run(self, flow: Flow[T]) -> T:
        return await self._aconn().run(flow)

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> AsyncSession:
        return AsyncSession(self, session_id, type_name, self._schemas.get(type_name), key, state, revision)

    def _publish(self, session: AsyncSession, changes: Changes) -> None:
        for stream in list(session._streams):
            stream.put_nowait(changes)
        super()._publish(session, changes)

    def _session_ended(self, session: AsyncSession, failure: Optional[BaseException]) -> None:
        if failure is not None and self._socket_path is not None and not self._closed \
                and session.key is not None and session.parent is None:
            return  # reopened when the client reconnects: its change streams go on
        for stream in list(session._streams):
            stream.put_nowait(_END if failure is None else self._aconn().failure())

    # Reconnecting to a shared daemon (reconnect.py; the sync Client does the same on a thread).

    def _reconnect_later(self, flow: Flow[None]) -> None:
        self._reconnecting = asyncio.ensure_future(self._drive(flow))

    async def _drive(self, flow: Flow[None]) -> None:
        """Runs the reconnect flow (hub.py), awaiting each effect; cancelled when the client closes."""
        async def sleep(seconds: float) -> bool:
            await asyncio.sleep(seconds)
            return False

        async def run(connection: AsyncConnection, inner: Flow[Any]) -> Any:
            return await connection.run(inner)
        ops: Dict[str, Callable[..., Awaitable[Any]]] = {SLEEP: sleep, CONNECT: self._connect, RUN: run}
        stepper = Stepper(flow)
        while stepper.effect is not None:
            stepper.settle(await _perform(ops[stepper.effect[0]], stepper.effect[1:]))

    def _submit(self, callback: Callable[[Any], Any], changes: Any) -> None:
        if self._callbacks is None:
            self._callbacks = asyncio.Queue()
            self._callback_task = asyncio.ensure_future(self._run_callbacks(self._callbacks))
        self._callbacks.put_nowait((callback, changes))

    @staticmethod
    async def _run_callbacks(queue: "asyncio.Queue[Any]") -> None:
        while True:
            item = await queue.get()
            try:
                if item is _END:
                    return
                callback, changes = item
                result = callback(changes)
                if inspect.isawaitable(result):
                    await result
            except Exception:
                logger.exception("bindery: a change callback raised")
            finally:
                queue.task_done()
