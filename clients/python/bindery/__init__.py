"""Python client for binderyd, Bindery's view-model daemon (JSON-RPC 2.0 over stdio).

    from bindery import Client

    with Client() as client:
        form = client.open("email")
        form.set("email", "a@b.co")
        assert form.state["isValid"]

``AsyncClient`` is the same API for asyncio.
"""
from __future__ import annotations

__version__ = "0.1.0"

from .aio import AsyncClient, AsyncSession
from .client import Client
from .discovery import find_daemon
from .errors import (
    ERROR_CLASSES, BinderyError, BinderyException, ClientClosed, CommandDisabled, CommandFailed,
    DaemonExited, DaemonNotFound, FramingError, InternalError, InvalidParams, InvalidRequest,
    MethodNotFound, NeedsDeterministicMode, OpenFailed, ParseError, ReadOnlyField, RequestCancelled,
    RequestTimeout, SchemaMismatch, SnapshotMismatch, StaleRevision, UnknownCommand, UnknownField, UnknownSession, UnknownType,
    UntrustedSocket, WaitTimeout, WrongValueType, error_from_json,
)
from .framing import CONTENT_LENGTH, NDJSON, FrameDecoder, encode_frame
from .schema import CommandSchema, FieldSchema, Schema
from .session import Session
from .state import MISSING, Changes, History, Snapshot
from .typed import AsyncTypedSession, TypedSession

__all__ = [
    "__version__", "Client", "Session", "AsyncClient", "AsyncSession", "Changes", "History", "Snapshot", "MISSING",
    "Schema", "FieldSchema", "CommandSchema", "find_daemon", "TypedSession", "AsyncTypedSession",
    "CONTENT_LENGTH", "NDJSON", "FrameDecoder", "encode_frame",
    "BinderyException", "BinderyError", "ERROR_CLASSES", "error_from_json",
    "ParseError", "InvalidRequest", "MethodNotFound", "InvalidParams", "InternalError",
    "UnknownType", "UnknownSession", "UnknownField", "ReadOnlyField", "WrongValueType",
    "UnknownCommand", "CommandDisabled", "CommandFailed", "OpenFailed", "NeedsDeterministicMode",
    "SchemaMismatch", "SnapshotMismatch", "StaleRevision", "RequestCancelled", "DaemonNotFound", "DaemonExited", "UntrustedSocket", "ClientClosed",
    "RequestTimeout",
    "WaitTimeout", "FramingError",
]
