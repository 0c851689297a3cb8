"""What the sync and asyncio clients share: schemas, the session table, change routing, the calls.

The hooks here run on the connection's reader, in the order messages arrive: a session is
registered the moment its ``session/open`` response is read (so no didChange for it can be
missed), didChange is folded into the mirror (mirror.py) before the response that follows it wakes
anyone, and a session the mirror finds out of step gets a ``session/state`` resync. The calls are flows (see endpoint.py) that
the two clients run, blocking (client.py) or awaiting (aio.py).
"""
from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Callable, Dict, Generic, List, Mapping, Optional, Sequence, Tuple, TypeVar

from .discovery import find_daemon
from .endpoint import RUN, WAIT_RECONNECT, Endpoint, Flow
from .errors import BinderyError, ClientClosed, RequestTimeout
from .mirror import Mirror, Taken
from .reconnect import CONNECT, SLEEP, ConnectionEvent, delays, say
from .rpc import Pending, ResultHook
from .schema import Schema, nested_schemas
from .socket_connection import socket_path
from .state import Changes, SessionBase
from .values import encode

__all__ = ["Hub", "CLIENT_NAME"]

logger = logging.getLogger("bindery")
CLIENT_NAME = "bindery-python"
REATTACH_TIMEOUT = 30.0  # seconds for each request of a reattach (initialize, a reopen)

S = TypeVar("S", bound=SessionBase)
T = TypeVar("T")


class Hub(Generic[S]):
    """Session table, routing and calls; the clients create sessions and deliver changes."""

    #: Default time limit of every request, in seconds (None: as long as the daemon lives).
    timeout: Optional[float] = None

    def __init__(self, daemon: Optional[str], args: Optional[Sequence[str]], timeout: Optional[float],
                 splices: bool = True, display: bool = False, socket: Optional[str] = None) -> None:
        #: The daemon's executable (see find_daemon) and the whole command line.
        self.daemon_path = find_daemon(daemon)
        self._argv = [self.daemon_path, *(args or [])]
        #: The shared daemon's socket (``socket=``), whose death the client reconnects from; else None.
        self._socket_path = socket_path(socket) if socket is not None else None
        self._closed = False
        self._swap = threading.Lock()  # a reconnect's new connection against close()
        self._listeners: List[Callable[[ConnectionEvent], Any]] = []
        self.timeout = timeout
        self._splices = splices
        self._display = display
        #: The capabilities the daemon agreed to in ``initialize`` (``{"splices": True}``); empty
        #: when it agreed to none, or was not initialized.
        self.capabilities: Dict[str, Any] = {}
        self._peer: Optional[Endpoint] = None
        #: Every session held (opened here, and their children), and the writes not yet answered.
        self._mirror = Mirror()
        self._schemas: Dict[str, Schema] = {}
        #: ``serverInfo`` from initialize: {name, version}.
        self.server_info: Dict[str, Any] = {}
        #: ``protocolVersion`` from initialize.
        self.protocol_version: Optional[int] = None

    def _attach(self, peer: Endpoint) -> None:
        """Routes the connection's didChange notifications, and its end, here."""
        self._peer = peer
        self._route(peer)

    def _route(self, peer: Endpoint) -> None:
        peer.on_did_change = self._on_did_change
        peer.on_sent = self._on_sent
        peer.on_answer = self._on_answer
        peer.on_lost.append(self._on_lost)
        if self._socket_path is not None:
            peer.on_lost.append(lambda failure: self._lost_shared(peer, failure))

    def _conn(self) -> Endpoint:
        if self._peer is None:
            raise ClientClosed("the client is not started: use `async with AsyncClient()` or `await client.start()`")
        return self._peer

    # Overridden by the clients.

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> S:
        raise NotImplementedError

    def _submit(self, callback: Callable[[Any], Any], item: Any) -> None:
        """Queues ``callback(item)`` for the client's callback thread or task (must not block)."""
        raise NotImplementedError

    def _reconnect_later(self, flow: Flow[None]) -> None:
        """Runs ``_reconnect_flow`` on a thread or a task (see there for its effects)."""
        raise NotImplementedError

    def _session_ended(self, session: S, failure: Optional[BaseException]) -> None:
        """The session was closed (failure None) or the daemon is gone: end what follows it."""

    def _start_failed(self) -> None:
        """Initialization failed and the daemon was stopped: release what the client started."""

    # Delivering changes (on the reader).

    def _deliver(self, session: S, changes: Changes) -> None:
        """Wakes the session's waiters and hands a change set to its listeners."""
        session._wake()
        self._publish(session, changes)

    def _publish(self, session: S, changes: Changes) -> None:
        for listener in session._listeners_now():
            self._submit(listener, changes)

    def _touch(self, session: S) -> None:
        """Wakes the session's waiters (state changed without a change set to deliver)."""
        session._wake()
        if session.closed:
            self._session_ended(session, None)

    def _on_lost(self, failure: Optional[BaseException]) -> None:
        with self._mirror.lock:
            self._mirror.forget_writes()
        for session in list(self._sessions.values()):
            if failure is None:
                session._mark_closed()
            session._wake()
            self._session_ended(session, failure)

    # Reconnecting to a shared daemon (reconnect.py).

    def on_connection(self, callback: Callable[[ConnectionEvent], Any]) -> Callable[[], None]:
        """Calls ``callback(event)`` on the callback thread (asyncio: task; it may be a coroutine
        function) when a shared daemon (``socket=``) dies under the client and as it reconnects:
        ``event.kind`` is "lost" (``event.error``: the DaemonExited, saying how it ended),
        "reconnecting" (``event.delay``: seconds before the next attempt) or "reconnected"
        (``event.reopened``: the keyed sessions, the same objects; ``event.closed``: those that did
        not come back). Returns a function that removes it."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    def _tell(self, event: ConnectionEvent) -> None:
        say(event)
        for listener in list(self._listeners):
            self._submit(listener, event)

    def _lost_shared(self, peer: Endpoint, failure: Optional[BaseException]) -> None:
        """The shared daemon's connection ended (on its reader): unless the client closed it, or it
        was a reconnect attempt's (that loop tries again), reconnect."""
        if failure is None or self._closed or peer is not self._peer:
            return
        self._reconnect_later(self._reconnect_flow(failure, *self._release_for_reattach()))

    def _reconnect_flow(self, failure: BaseException, keyed: List[S], gone: List[S]) -> Flow[None]:
        """Says the daemon was lost, then tries again with backoff: connect (starting a daemon when
        none answers), initialize, reopen the keyed sessions; only then is the new connection the
        client's. Its effects, besides the new connection's own: ``(SLEEP, s)`` -> True once the
        client is closed, ``(CONNECT,)`` -> a new connection, ``(RUN, connection, flow)`` -> the
        flow's value, run on that connection."""
        path = self._socket_path or ""
        self._tell(ConnectionEvent("lost", path, error=failure))
        error: Optional[BaseException] = None
        for attempt, delay in enumerate(delays(), 1):
            self._tell(ConnectionEvent("reconnecting", path, delay, attempt, error))
            if (yield (SLEEP, delay)):
                return
            connection: Optional[Endpoint] = None
            try:
                connection = yield (CONNECT,)
                self._route(connection)
                reopened, failed = yield (RUN, connection, self._reattach_flow(connection, keyed))
            except BaseException as failed_attempt:
                if connection is not None:
                    connection.kill()
                if not isinstance(failed_attempt, Exception):  # the client closed: no more attempts
                    raise
                error = failed_attempt  # no daemon yet, or it died again: the next attempt
                logger.debug("bindery: reconnect attempt %d failed", attempt, exc_info=True)
                continue
            with self._swap:
                if self._closed:
                    connection.kill()
                    return
                self._peer = connection
            self._tell(ConnectionEvent("reconnected", path, attempt=attempt, reopened=reopened, closed=gone + failed))
            return

    @property
    def reconnecting(self) -> bool:
        """True while the client reconnects to its shared daemon (``socket=``), which died: from the
        end of the connection until the new one is the client's (its keyed sessions reopened), or
        the client is closed. Calls on keyed sessions, and ``open``, wait for it meanwhile."""
        return self._socket_path is not None and not self._closed and self._peer is not None \
            and not self._peer.alive

    def _call_when_connected(self, session: Optional[S], method: str, timeout: Optional[float],
                             call: Callable[[Optional[float]], Flow[T]]) -> Flow[T]:
        """A call on ``session`` (None: ``open``), ``call(timeout)``: at once, or, made while the
        client reconnects, on a keyed session (or ``open``), once the reconnect is over — within the
        call's timeout, which the call then has what is left of — on the new connection: the same
        Session object, its new id. A session that did not come back, or a client closed
        meanwhile, raises what a call on it raises then; an unkeyed session's call raises at once
        (the daemon it lived in is gone)."""
        if not self.reconnecting or (session is not None and (session.key is None or session.closed)):
            return (yield from call(timeout))
        limit = self.timeout if timeout is None else timeout
        deadline = None if limit is None else time.monotonic() + limit
        left = limit
        while self.reconnecting:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RequestTimeout(method, None, limit or 0.0) from self._conn().failure()
            yield (WAIT_RECONNECT, self, left)
        if deadline is not None:
            left = max(deadline - time.monotonic(), 0.0)
        return (yield (RUN, self._conn(), call(left)))

    # State.

    @property
    def alive(self) -> bool:
        """True while the daemon runs and the client is not closed."""
        return self._peer is not None and self._peer.alive

    @property
    def stderr_tail(self) -> List[str]:
        """The daemon's last stderr lines."""
        return self._conn().stderr_tail

    def notify(self, method: str, params: Any = None) -> None:
        """Sends any notification."""
        self._conn().notify(method, params)

    # The calls, as flows.

    def _call_flow(self, method: str, params: Any, timeout: Optional[float],
                   on_result: Optional[ResultHook] = None) -> Flow[Any]:
        return (yield from self._conn().request_flow(method, params, self.timeout if timeout is None else timeout,
                                                     on_result))

    def _start_flow(self, initialize: bool) -> Flow[None]:
        """Sends initialize; on any failure stops the daemon before raising."""
        if not initialize:
            return
        try:
            self._take_initialize((yield from self._call_flow("initialize", self._initialize_params(), None)))
        except BaseException:
            self._conn().kill()
            yield from self._conn().close_flow(2.0)
            self._start_failed()
            raise

    def _open_flow(self, type_name: str, args: Optional[Dict[str, Any]], observe: Optional[Sequence[str]],
                   key: Optional[str], timeout: Optional[float], schema_hash: Optional[str] = None,
                   restore: Optional[Mapping[str, Any]] = None) -> Flow[S]:
        params = self._open_params(type_name, args, observe, key, schema_hash, restore)
        opened: List[S] = []

        def adopt(result: Any, pending: Pending) -> None:  # on the reader, before any didChange for it
            opened.append(self._adopt(type_name, key, result))
            if key is not None:  # what a reconnect reopens it with (not restore: the daemon kept it)
                opened[0]._open_params = {name: value for name, value in params.items() if name != "restore"}

        yield from self._call_flow("session/open", params, timeout, adopt)
        return opened[0]

    def _release_for_reattach(self) -> Tuple[List[S], List[S]]:
        """The shared daemon is gone: the keyed sessions opened here, to reopen after a reconnect,
        and the others (unkeyed ones, children: a reopened parent brings new ones), closed now."""
        with self._mirror.lock:
            held = list(self._mirror.sessions.values())
            self._mirror.forget_sessions()  # the old daemon's ids mean nothing to the next one
        keyed = [h.owner for h in held if h.owner is not None and h.parent is None and h.owner.key is not None]
        closed = [h.owner for h in held if h.owner is not None and h.owner not in keyed]
        for session in closed:
            self._end_with_daemon(session, "it had no key" if session.parent is None else
                                  "its parent, reopened, shows new child sessions")
        return keyed, closed

    def _reattach_flow(self, peer: Endpoint, keyed: List[S]) -> Flow[Tuple[List[S], List[S]]]:
        """After a reconnect, on the new connection (not yet the client's): initialize, then reopen
        each keyed session with its type and key; the same Session object takes the new id,
        revision and state (``restored`` when the daemon kept it). Returns those reopened and
        those whose reopen failed (now closed)."""
        timeout = REATTACH_TIMEOUT
        self._take_initialize((yield from peer.request_flow("initialize", self._initialize_params(), timeout)))
        with self._mirror.lock:  # what an earlier attempt reopened on a connection that died since
            self._mirror.forget_sessions()
        failed: List[S] = []
        for session in keyed:
            def adopt(result: Any, pending: Pending, session: S = session) -> None:
                self._adopt(session.type, session.key, result, session)
            try:
                yield from peer.request_flow("session/open", session._open_params, timeout, adopt)
            except BinderyError as error:  # the daemon's type changed, the key is held by another type...
                self._end_with_daemon(session, "reopening its key failed: %s" % error)
                failed.append(session)
        return [session for session in keyed if session not in failed], failed

    def _end_with_daemon(self, session: S, why: str) -> None:
        session._closed_why = "the daemon it lived in ended, and %s" % why
        self._ended(session)

    def _describe_flow(self, type_name: Optional[str], timeout: Optional[float]) -> Flow[List[Dict[str, Any]]]:
        params = {"type": type_name} if type_name is not None else None
        result = yield from self._call_flow("viewModels/describe", params, timeout)
        return self._take_schemas(result.get("viewModels") or [])

    def _advance_clock_flow(self, ms: int, timeout: Optional[float]) -> Flow[int]:
        result = yield from self._call_flow("clock/advance", {"ms": ms}, timeout)
        return int(result["now"])

    # Schemas.

    def _initialize_params(self) -> Dict[str, Any]:
        from . import __version__
        # splices: the daemon may send a list's edit instead of the whole list; the mirror folds
        # it back into the whole list, so nothing changes for code that reads state.
        return {"processId": os.getpid(), "clientInfo": {"name": CLIENT_NAME, "version": __version__},
                # display: the daemon's text of each value, beside it (Session.display).
                "capabilities": {**({"splices": True} if self._splices else {}),
                                 **({"display": True} if self._display else {})}}

    def _take_initialize(self, result: Dict[str, Any]) -> None:
        self.protocol_version = result.get("protocolVersion")
        self.server_info = result.get("serverInfo") or {}
        self.capabilities = dict(result.get("capabilities") or {})
        self._take_schemas(result.get("viewModels") or [])

    def _take_schemas(self, view_models: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
        named = {raw.get("type") for raw in view_models}
        for raw in view_models:
            schema = Schema.from_json(raw)
            self._schemas[schema.type] = schema
            for nested in nested_schemas(raw):  # child view model types, by their type name
                if nested["type"] not in named:
                    self._schemas[nested["type"]] = Schema.from_json(nested)
        return list(view_models)

    def schema(self, type_name: str) -> Optional[Schema]:
        """The schema of a view model type, as ``initialize``/``describe`` last gave it."""
        return self._schemas.get(type_name)

    @property
    def schemas(self) -> Dict[str, Schema]:
        """Every known schema, by type."""
        return dict(self._schemas)

    @property
    def sessions(self) -> List[S]:
        """Open sessions, oldest first."""
        return [self._sessions[i] for i in sorted(self._sessions)]

    @property
    def _sessions(self) -> Dict[int, S]:
        """The sessions the mirror holds, by id (a copy)."""
        with self._mirror.lock:
            return {ident: held.owner for ident, held in self._mirror.sessions.items() if held.owner is not None}

    def _session(self, ident: Any) -> Optional[S]:
        held = self._mirror.sessions.get(ident)
        return held.owner if held is not None else None

    # Building requests.

    def _open_params(self, type_name: str, args: Optional[Dict[str, Any]], observe: Optional[Sequence[str]],
                     key: Optional[str], schema_hash: Optional[str] = None,
                     restore: Optional[Mapping[str, Any]] = None) -> Dict[str, Any]:
        params: Dict[str, Any] = {"type": type_name}
        if args is not None:
            params["args"] = encode(args)
        if observe is not None:
            observe = list(observe)
            schema = self._schemas.get(type_name)
            if schema is not None:
                schema.check_members(observe, None)
            params["observe"] = observe
        if key is not None:
            params["key"] = key
        if schema_hash is not None:
            params["schemaHash"] = schema_hash
        if restore is not None:
            params["restore"] = dict(restore)
        return params

    # Reader hooks: fold into the mirror, then act on what it says.

    def _adopt(self, type_name: str, key: Optional[str], result: Dict[str, Any], reopened: Optional[S] = None) -> S:
        """The Session for a session/open result, its mirror replaced by the result: a keyed reopen
        returns the object already held (``reopened``: after a reconnect, that object, new id)."""
        with self._mirror.lock:
            if reopened is not None:
                reopened._held.id = result["session"]
                self._mirror.sessions[reopened.id] = reopened._held
            session = self._session(result["session"])
            if session is None:
                session = self._new_session(result["session"], type_name, key, result.get("state") or {},
                                            result.get("revision", 0))
            session._restored = bool(result.get("restored"))
            self._take_snapshot(session, result)
            return session

    def _take_snapshot(self, session: S, result: Dict[str, Any], whole: bool = True) -> None:
        """A whole state (session/open of a held key, session/state, session/observe) replaces the
        mirror; the difference is delivered as a change set with ``resync=True``. ``whole``: the
        result lists every child under the session (session/open, session/state; not
        session/observe), whose mirrors are replaced too; a child it no longer lists is detached."""
        with self._mirror.lock:
            diff, taken = self._mirror.take_state(session._held, result, whole)
            self._act(taken)
            self._deliver_or_touch(session, Changes(diff, session.id, session.revision, None, resync=True))

    def _deliver_or_touch(self, session: S, changes: Changes) -> None:
        if changes or changes.splices:
            self._deliver(session, changes)
        else:
            self._touch(session)

    def _act(self, taken: Taken) -> None:
        """Children a message gave: a Session for each new one, a resync change set for each given
        again, and those dropped detached (with every session under them)."""
        for held in taken.made:
            self._new_session(held.id, held.type, None, held.state, held.revision)
        for held, diff in taken.given_again:
            if held.owner is not None:
                self._deliver_or_touch(held.owner, Changes(diff, held.id, held.revision, None, resync=True))
        for held in taken.dropped:
            if held.owner is not None:
                held.owner._detached = True
                self._ended(held.owner)

    def _ended(self, session: S) -> None:
        session._mark_closed()
        self._touch(session)

    def _forget(self, session: S) -> None:
        """The session is closed (session/close, or the daemon no longer has it), and so is every
        session under it."""
        with self._mirror.lock:
            for held in self._mirror.drop(session.id) or [session._held]:
                if held.owner is not None:
                    self._ended(held.owner)

    def _on_did_change(self, params: Dict[str, Any]) -> None:
        with self._mirror.lock:
            fold = self._mirror.did_change(params)
            if fold is None:
                session = self._session(params.get("session"))
                if session is None:
                    logger.debug("bindery: didChange for session %r, not open here", params.get("session"))
                    return
                # Out of step: ignored until session/state answers (asked again if that failed).
            else:
                session = fold.held.owner
                self._act(fold.taken)
                self._deliver_or_touch(session, Changes(fold.changes, session.id, session.revision,
                                                        params.get("cause"), splices=fold.splices))
            out_of_step = session._held.id in self._mirror.out_of_step
        if out_of_step:
            self._resync(session, fold.out_of_step if fold is not None else "")

    def _on_sent(self, pending: Pending) -> None:
        """A request is about to be written: a setField's value is what the mirror holds when it is
        answered (no echo), and what a splice of that field caused by it applies to."""
        params = pending.params
        if pending.method == "setField" and isinstance(params, dict) and isinstance(params.get("session"), int) \
                and isinstance(params.get("field"), str) and "value" in params:
            with self._mirror.lock:
                self._mirror.write_sent(pending.id, params["session"], params["field"], params["value"])

    def _on_answer(self, pending: Pending, result: Any, error: Optional[BaseException]) -> None:
        """A response, before its caller wakes: a write answered is folded by the echo rule."""
        if pending.method != "setField":
            return
        with self._mirror.lock:
            held = self._mirror.answered(pending.id, result, failed=error is not None)
            if held is None or held.owner is None:
                return
            self._touch(held.owner)
            behind = held.id in self._mirror.out_of_step
        if behind:
            self._resync(held.owner)

    def _resync(self, session: S, why: str = "") -> None:
        """Asks for session/state without waiting; the snapshot replaces the mirror when it comes.

        One at a time: the state a resync brings is newer than anything that arrived before it."""
        if session._resyncing or session.closed:
            return
        if why:
            logger.warning("bindery: session %d is out of step (%s); resynchronising", session.id, why)
        session._resyncing = True

        def done(result: Dict[str, Any], pending: Pending) -> None:
            session._resyncing = False
            self._take_snapshot(session, result)

        def failed(error: BaseException) -> None:
            session._resyncing = False

        try:
            self._conn().send_request("session/state", {"session": session.id}, on_result=done, on_error=failed)
        except Exception:
            session._resyncing = False
            logger.debug("bindery: could not resync session %d", session.id, exc_info=True)

    def _after_history(self, session: S) -> ResultHook:
        """The on_result hook of session/undo and session/redo: their didChanges came first (cause:
        this request) and carry the restored fields; a revision beyond the mirror's means one was lost."""
        def hook(result: Any, pending: Pending) -> None:
            with self._mirror.lock:
                behind = self._mirror.behind(session._held, result.get("revision") if isinstance(result, dict) else None)
            if behind:
                self._resync(session)
        return hook

    def _after_snapshot(self, session: S, whole: bool = True) -> ResultHook:
        """The on_result hook of session/state and session/observe: the result is the new mirror
        (``whole``: with every child under the session, as session/state gives it)."""
        def hook(result: Any, pending: Pending) -> None:
            if isinstance(result, dict):
                self._take_snapshot(session, result, whole)
        return hook

    def _after_close(self, session: S) -> ResultHook:
        """The on_result hook of session/close: the session is gone."""
        def hook(result: Any, pending: Pending) -> None:
            self._forget(session)
        return hook
