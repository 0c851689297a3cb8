"""The asyncio client: the same API as Client and Session, with ``await`` on every call."""
from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any, Awaitable, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Type, Union

from .aio_connection import AsyncConnection
from .connection import DEFAULT_CANCEL_GRACE, DEFAULT_STDERR_LINES
from .discovery import find_daemon
from .errors import ClientClosed, UnknownSession, WaitTimeout
from .framing import CONTENT_LENGTH
from .hub import Hub
from .rpc import ResultHook
from .schema import Schema
from .state import MISSING, Changes, SessionBase

__all__ = ["AsyncClient", "AsyncSession", "ChangeStream"]

logger = logging.getLogger("bindery")

AsyncChangeCallback = Callable[[Changes], Union[None, Awaitable[None]]]
_END = object()  # ends a change stream


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
        super().__init__(session_id, type_name, schema, key, state, revision)
        self._client = client
        self._listeners: List[AsyncChangeCallback] = []
        self._streams: List["asyncio.Queue[Any]"] = []
        self._touched: Optional[asyncio.Event] = None

    async def set(self, field: str, value: Any, timeout: Optional[float] = None) -> int:
        """Writes a field (setField); returns the revision. See Session.set."""
        params = self._set_params(field, value)
        result = await self._client._call("setField", params, timeout, self._client._after_set(self, field, value))
        return result.get("revision", self._revision) if isinstance(result, dict) else self._revision

    async def invoke(self, command: str, args: Any = MISSING, timeout: Optional[float] = None) -> Any:
        """Runs a command and returns its result. See Session.invoke; cancelling the task cancels it."""
        params = self._invoke_params(command, args)
        result = await self._client._call("invoke", params, timeout)
        return result.get("result") if isinstance(result, dict) else result

    async def refresh(self, timeout: Optional[float] = None) -> Dict[str, Any]:
        """Re-reads the whole state (session/state); returns ``state``."""
        self._check_open()
        await self._client._call("session/state", {"session": self.id}, timeout, self._client._after_snapshot(self))
        return self._state

    async def observe(self, names: Iterable[str], timeout: Optional[float] = None) -> Dict[str, Any]:
        """Pushes only these members from now on (session/observe); returns the new ``state``."""
        params = self._observe_params(names)
        await self._client._call("session/observe", params, timeout, self._client._after_snapshot(self))
        return self._state

    async def close(self, timeout: Optional[float] = None) -> None:
        """Closes the session. Idempotent."""
        if self._closed:
            return
        try:
            await self._client._call("session/close", {"session": self.id}, timeout, self._client._after_close(self))
        except UnknownSession:
            self._client._forget(self)

    def on_change(self, callback: AsyncChangeCallback) -> Callable[[], None]:
        """Calls ``callback(changes)`` (a function or a coroutine function) for every change set, in
        order, from the client's callback task. Returns a function that removes it."""
        self._listeners.append(callback)

        def remove() -> None:
            if callback in self._listeners:
                self._listeners.remove(callback)
        return remove

    def changes(self) -> ChangeStream:
        """``async for changes in session.changes():`` every change set from now on, in order."""
        return ChangeStream(self)

    async def wait_until(self, predicate: Callable[[Dict[str, Any]], bool],
                         timeout: Optional[float] = None) -> Dict[str, Any]:
        """Waits until ``predicate(state)`` is true (checked at once, then after every change)."""
        async def waiting() -> Dict[str, Any]:
            while True:
                if predicate(self._state):
                    return self._state
                self._check_open()
                await self._event().wait()

        try:
            return await asyncio.wait_for(waiting(), timeout)
        except asyncio.TimeoutError:
            raise WaitTimeout("session %d (%s): condition not met within %ss; state: %r"
                              % (self.id, self.type, timeout, dict(self._state))) from None

    def _check_open(self) -> None:
        self._client._conn().check_usable()
        super()._check_open()

    # Called by the client on its reader task.

    def _event(self) -> asyncio.Event:
        if self._touched is None:
            self._touched = asyncio.Event()
        return self._touched

    def _wake(self) -> None:
        # A fresh event per change: waiters woken by this one re-check and wait on the next.
        if self._touched is not None:
            self._touched.set()
            self._touched = None

    async def __aenter__(self) -> "AsyncSession":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        if self._client.alive:
            await self.close()


class AsyncClient(Hub):
    """The asyncio Client: ``async with AsyncClient() as client:``. See Client for the arguments."""

    def __init__(self, daemon: Optional[str] = None, args: Optional[Sequence[str]] = None, *,
                 framing: str = CONTENT_LENGTH, env: Optional[Mapping[str, str]] = None,
                 cwd: Optional[str] = None, initialize: bool = True, timeout: Optional[float] = None,
                 cancel_grace: float = DEFAULT_CANCEL_GRACE, stderr_lines: int = DEFAULT_STDERR_LINES) -> None:
        super().__init__()
        self.daemon_path = find_daemon(daemon)
        self.timeout = timeout
        self._argv = [self.daemon_path, *(args or [])]
        self._options: Dict[str, Any] = dict(framing=framing, env=env, cwd=cwd, stderr_lines=stderr_lines,
                                             cancel_grace=cancel_grace)
        self._initialize = initialize
        self._connection: Optional[AsyncConnection] = None
        self._callbacks: "Optional[asyncio.Queue[Any]]" = None
        self._callback_task: "Optional[asyncio.Task[None]]" = None

    async def start(self) -> "AsyncClient":
        """Spawns the daemon and sends initialize (``async with`` does this)."""
        if self._connection is not None:
            return self
        connection = await AsyncConnection.start(self._argv, **self._options)
        self._attach(connection)
        self._connection = connection
        connection.on_lost.append(self._on_lost)
        if self._initialize:
            try:
                self._take_initialize(await self._call("initialize", self._initialize_params(), None))
            except BaseException:
                connection.kill()
                await connection.close(timeout=2.0)
                raise
        return self

    @classmethod
    async def connect(cls, *args: Any, **kwargs: Any) -> "AsyncClient":
        """``await AsyncClient.connect(...)``: construct and start."""
        return await cls(*args, **kwargs).start()

    async def open(self, type: str, args: Optional[Dict[str, Any]] = None,
                   observe: Optional[Sequence[str]] = None, key: Optional[str] = None,
                   timeout: Optional[float] = None) -> AsyncSession:
        """Opens a session (session/open). See Client.open."""
        params = self._open_params(type, args, observe, key)
        opened: List[SessionBase] = []

        def adopt(result: Any, pending: Any) -> None:
            opened.append(self._adopt(type, key, result))

        await self._call("session/open", params, timeout, adopt)
        return opened[0]  # type: ignore[return-value]

    async def describe(self, type: Optional[str] = None, timeout: Optional[float] = None) -> List[Dict[str, Any]]:
        """The schemas (viewModels/describe)."""
        result = await self._call("viewModels/describe", {"type": type} if type is not None else None, timeout)
        return self._take_schemas(result.get("viewModels") or [])

    async def advance_clock(self, ms: int, timeout: Optional[float] = None) -> int:
        """Moves a --deterministic daemon's virtual clock (clock/advance); returns its time in ms."""
        result = await self._call("clock/advance", {"ms": ms}, timeout)
        return int(result["now"])

    async def request(self, method: str, params: Any = None, timeout: Optional[float] = None) -> Any:
        """Sends any request and returns its result."""
        return await self._call(method, params, timeout)

    def notify(self, method: str, params: Any = None) -> None:
        """Sends any notification."""
        self._conn().notify(method, params)

    async def drain_callbacks(self) -> None:
        """Waits until every on_change callback queued so far has run."""
        if self._callbacks is not None and self._callback_task is not None and not self._callback_task.done():
            await self._callbacks.join()

    @property
    def connection(self) -> AsyncConnection:
        return self._conn()

    @property
    def process(self) -> "asyncio.subprocess.Process":
        return self._conn().process

    @property
    def alive(self) -> bool:
        return self._connection is not None and self._connection.alive

    @property
    def stderr_tail(self) -> List[str]:
        return self._conn().stderr_tail

    async def close(self, timeout: float = 5.0) -> Optional[int]:
        """Sends shutdown and exit, awaits the daemon and the queued callbacks; its exit code."""
        if self._connection is None:
            return None
        code = await self._connection.close(timeout)
        if self._callback_task is not None:
            assert self._callbacks is not None
            self._callbacks.put_nowait(_END)
            await asyncio.wait([self._callback_task], timeout=timeout)
        return code

    async def __aenter__(self) -> "AsyncClient":
        return await self.start()

    async def __aexit__(self, exc_type: Optional[Type[BaseException]], *rest: Any) -> None:
        await self.close()

    # Internals.

    def _conn(self) -> AsyncConnection:
        if self._connection is None:
            raise ClientClosed("the client is not started: use `async with AsyncClient()` or `await client.start()`")
        return self._connection

    async def _call(self, method: str, params: Any, timeout: Optional[float],
                    on_result: Optional[ResultHook] = None) -> Any:
        return await self._conn().request(method, params, self.timeout if timeout is None else timeout, on_result)

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> SessionBase:
        return AsyncSession(self, session_id, type_name, self._schemas.get(type_name), key, state, revision)

    def _deliver(self, session: SessionBase, changes: Changes) -> None:
        assert isinstance(session, AsyncSession)
        session._wake()
        for stream in list(session._streams):
            stream.put_nowait(changes)
        for listener in list(session._listeners):
            self._submit(listener, changes)

    def _touch(self, session: SessionBase) -> None:
        assert isinstance(session, AsyncSession)
        session._wake()
        if session.closed:
            for stream in list(session._streams):
                stream.put_nowait(_END)

    def _on_lost(self, failure: Optional[BaseException]) -> None:
        for session in list(self._sessions.values()):
            assert isinstance(session, AsyncSession)
            if failure is None:
                session._mark_closed()
            session._wake()
            for stream in list(session._streams):
                stream.put_nowait(_END if failure is None else self._conn().failure())

    def _submit(self, callback: AsyncChangeCallback, changes: Changes) -> None:
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
