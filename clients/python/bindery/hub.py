"""What the sync and asyncio clients share: schemas, the session table and change routing.

The hooks here run on the connection's reader, in the order messages arrive: a session is
registered the moment its ``session/open`` response is read (so no didChange for it can be
missed), didChange updates its mirror before the response that follows it wakes anyone, and a
gap in revisions triggers a ``session/state`` resync.
"""
from __future__ import annotations

import logging
import os
from typing import Any, Dict, List, Optional, Sequence

from .rpc import Pending, ResultHook, RpcPeer
from .schema import Schema
from .state import Changes, SessionBase

__all__ = ["Hub", "CLIENT_NAME"]

logger = logging.getLogger("bindery")
CLIENT_NAME = "bindery-python"


class Hub:
    """Session table and routing; subclasses create sessions and deliver changes."""

    def __init__(self) -> None:
        self._peer: Optional[RpcPeer] = None
        self._sessions: Dict[int, SessionBase] = {}
        self._schemas: Dict[str, Schema] = {}
        #: ``serverInfo`` from initialize: {name, version}.
        self.server_info: Dict[str, Any] = {}
        #: ``protocolVersion`` from initialize.
        self.protocol_version: Optional[int] = None

    def _attach(self, peer: RpcPeer) -> None:
        """Routes the connection's didChange notifications here."""
        self._peer = peer
        peer.on_did_change = self._on_did_change

    # Overridden by the clients.

    def _new_session(self, session_id: int, type_name: str, key: Optional[str],
                     state: Dict[str, Any], revision: int) -> SessionBase:
        raise NotImplementedError

    def _deliver(self, session: SessionBase, changes: Changes) -> None:
        """Hands a change set to the session's listeners and wakes its waiters."""
        raise NotImplementedError

    def _touch(self, session: SessionBase) -> None:
        """Wakes the session's waiters (state changed without a change set to deliver)."""
        raise NotImplementedError

    # Schemas.

    @staticmethod
    def _initialize_params() -> Dict[str, Any]:
        from . import __version__
        return {"processId": os.getpid(), "clientInfo": {"name": CLIENT_NAME, "version": __version__},
                "capabilities": {}}

    def _take_initialize(self, result: Dict[str, Any]) -> None:
        self.protocol_version = result.get("protocolVersion")
        self.server_info = result.get("serverInfo") or {}
        self._take_schemas(result.get("viewModels") or [])

    def _take_schemas(self, view_models: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
        for raw in view_models:
            schema = Schema.from_json(raw)
            self._schemas[schema.type] = schema
        return list(view_models)

    def schema(self, type_name: str) -> Optional[Schema]:
        """The schema of a view model type, as ``initialize``/``describe`` last gave it."""
        return self._schemas.get(type_name)

    @property
    def schemas(self) -> Dict[str, Schema]:
        """Every known schema, by type."""
        return dict(self._schemas)

    @property
    def sessions(self) -> List[SessionBase]:
        """Open sessions, oldest first."""
        return [self._sessions[i] for i in sorted(self._sessions)]

    # Building requests.

    def _open_params(self, type_name: str, args: Optional[Dict[str, Any]], observe: Optional[Sequence[str]],
                     key: Optional[str]) -> Dict[str, Any]:
        params: Dict[str, Any] = {"type": type_name}
        if args is not None:
            params["args"] = args
        if observe is not None:
            observe = list(observe)
            schema = self._schemas.get(type_name)
            if schema is not None:
                schema.check_members(observe, None)
            params["observe"] = observe
        if key is not None:
            params["key"] = key
        return params

    # Reader hooks.

    def _adopt(self, type_name: str, key: Optional[str], result: Dict[str, Any]) -> SessionBase:
        """The Session for a session/open result; a keyed reopen returns the object already held."""
        session_id = result["session"]
        existing = self._sessions.get(session_id)
        if existing is not None:
            changes = existing._apply_snapshot(result.get("revision"), result.get("state") or {})
            if changes:
                self._deliver(existing, changes)
            else:
                self._touch(existing)
            return existing
        session = self._new_session(session_id, type_name, key, result.get("state") or {},
                                    result.get("revision", 0))
        self._sessions[session_id] = session
        return session

    def _forget(self, session: SessionBase) -> None:
        session._mark_closed()
        self._sessions.pop(session.id, None)
        self._touch(session)

    def _on_did_change(self, params: Dict[str, Any]) -> None:
        session = self._sessions.get(params.get("session"))  # type: ignore[arg-type]
        if session is None:
            logger.debug("bindery: didChange for session %r, not open here", params.get("session"))
            return
        changes, gap = session._apply_did_change(params)
        self._deliver(session, changes)
        if gap:
            logger.warning("bindery: revision gap in session %d (got %r); resynchronising",
                           session.id, params.get("revision"))
            self._resync(session)

    def _resync(self, session: SessionBase) -> None:
        """Asks for session/state without waiting; the snapshot replaces the mirror when it comes."""
        if session._resyncing or session.closed:
            return
        session._resyncing = True

        def done(result: Dict[str, Any], pending: Pending) -> None:
            session._resyncing = False
            changes = session._apply_snapshot(result.get("revision"), result.get("state") or {})
            if changes:
                self._deliver(session, changes)
            else:
                self._touch(session)

        def failed(error: BaseException) -> None:
            session._resyncing = False

        try:
            assert self._peer is not None
            self._peer.send_request("session/state", {"session": session.id}, on_result=done, on_error=failed)
        except Exception:
            session._resyncing = False
            logger.debug("bindery: could not resync session %d", session.id, exc_info=True)

    def _after_set(self, session: SessionBase, field: str, value: Any) -> ResultHook:
        """The on_result hook of a setField: store the written value (no echo), check the revision."""
        def hook(result: Any, pending: Pending) -> None:
            revision = result.get("revision") if isinstance(result, dict) else None
            lost = session._store_written(field, value, pending.caused, revision)
            self._touch(session)
            if lost:
                self._resync(session)
        return hook

    def _after_snapshot(self, session: SessionBase) -> ResultHook:
        """The on_result hook of session/state and session/observe: the result is the new mirror."""
        def hook(result: Any, pending: Pending) -> None:
            if isinstance(result, dict):
                changes = session._apply_snapshot(result.get("revision"), result.get("state") or {})
                if changes:
                    self._deliver(session, changes)
                else:
                    self._touch(session)
        return hook

    def _after_close(self, session: SessionBase) -> ResultHook:
        """The on_result hook of session/close: the session is gone."""
        def hook(result: Any, pending: Pending) -> None:
            self._forget(session)
        return hook
