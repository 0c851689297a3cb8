"""Exceptions: one class per error code the daemon documents, plus the client's own failures."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Type, TypeVar

__all__ = [
    "BinderyException", "BinderyError",
    "ParseError", "InvalidRequest", "MethodNotFound", "InvalidParams", "InternalError",
    "UnknownType", "UnknownSession", "UnknownField", "ReadOnlyField", "WrongValueType",
    "UnknownCommand", "CommandDisabled", "CommandFailed", "OpenFailed", "NeedsDeterministicMode",
    "SchemaMismatch", "SnapshotMismatch", "StaleRevision", "RequestCancelled",
    "DaemonNotFound", "DaemonExited", "UntrustedSocket", "ClientClosed", "RequestTimeout", "WaitTimeout", "FramingError",
    "error_from_json", "ERROR_CLASSES",
]

_E = TypeVar("_E", bound="BinderyError")


class BinderyException(Exception):
    """Root of everything this package raises."""


class BinderyError(BinderyException):
    """A JSON-RPC error: from the daemon's response, or raised locally with the code it would send.

    ``code``, ``message`` and ``data`` are the JSON-RPC error's members; ``local`` is true when the
    client refused the call itself (a name not in the schema) without a round trip.
    """

    code_value: Optional[int] = None  # the documented code of a subclass

    def __init__(self, code: int, message: str, data: Any = None, *, local: bool = False) -> None:
        super().__init__(code, message, data)
        self.code = code
        self.message = message
        self.data = data
        self.local = local

    def __str__(self) -> str:
        return "%s (%d)" % (self.message, self.code)

    @classmethod
    def make(cls: Type[_E], message: str, data: Any = None, *, local: bool = False) -> _E:
        """An instance of this subclass with its documented code."""
        assert cls.code_value is not None, "make() needs a subclass with a documented code"
        return cls(cls.code_value, message, data, local=local)


# JSON-RPC 2.0's own codes.

class ParseError(BinderyError):
    """A body that is not JSON, or a frame that cannot be read."""

    code_value = -32700


class InvalidRequest(BinderyError):
    """Not a JSON-RPC 2.0 request, or a request after shutdown."""

    code_value = -32600


class MethodNotFound(BinderyError):
    """An unknown method."""

    code_value = -32601


class InvalidParams(BinderyError):
    """Params missing or of the wrong type; args not fitting a command."""

    code_value = -32602


class InternalError(BinderyError):
    """A bug in the daemon."""

    code_value = -32603


# Bindery's codes (-32010..-32022) and LSP's RequestCancelled.

class UnknownType(BinderyError):
    """session/open or viewModels/describe with an unregistered type."""

    code_value = -32010


class UnknownSession(BinderyError):
    """A session id never opened, or closed."""

    code_value = -32011


class UnknownField(BinderyError):
    """setField or observe with a name the type does not have."""

    code_value = -32012


class ReadOnlyField(BinderyError):
    """setField on an output or a command's state."""

    code_value = -32013


class WrongValueType(BinderyError):
    """setField with a value that does not fit the field's type."""

    code_value = -32014


class UnknownCommand(BinderyError):
    """invoke with a name the type does not have."""

    code_value = -32015


class CommandDisabled(BinderyError):
    """invoke while the command's enabled condition is false."""

    code_value = -32016


class CommandFailed(BinderyError):
    """The command threw; data has session, command and maybe detail."""

    code_value = -32017


class OpenFailed(BinderyError):
    """The type refused session/open's args (or the key is taken)."""

    code_value = -32018


class NeedsDeterministicMode(BinderyError):
    """clock/advance on a daemon without --deterministic."""

    code_value = -32019


class SchemaMismatch(BinderyError):
    """session/open with a schemaHash that is not the type's: the typed client was generated from
    another version of the view model. ``data`` is ``{type, schemaHash, expected}``; the message
    says to regenerate the client."""

    code_value = -32021

    def __init__(self, code: int, message: str, data: Any = None, *, local: bool = False) -> None:
        if isinstance(data, dict) and isinstance(data.get("type"), str):
            message = ("the daemon's `%s` differs from the generated client (the daemon's schemaHash is %s, the "
                       "client's %s); regenerate with clients/codegen/bindery-codegen"
                       % (data["type"], data.get("schemaHash"), data.get("expected")))
        super().__init__(code, message, data, local=local)


class SnapshotMismatch(BinderyError):
    """session/open's ``restore`` does not fit the type: a snapshot of another type, or one with a
    field the type no longer has, a field that is not writable, or a value the field no longer
    takes. ``data`` is ``{type, schemaHash, reason}`` (the daemon's type and hash, and what did not
    fit); nothing was opened."""

    code_value = -32022


class StaleRevision(BinderyError):
    """setField or invoke with an ``expected_revision`` the session has moved on from (another
    client, a timer or a command changed it): nothing was written or run. ``data`` is ``{session,
    revision, expectedRevision, field, value}`` (``command`` instead of field and value for invoke)."""

    code_value = -32023


class RequestCancelled(BinderyError):
    """$/cancelRequest, or the session closed, while the command ran."""

    code_value = -32800


ERROR_CLASSES: Dict[int, Type[BinderyError]] = {
    cls.code_value: cls
    for cls in (ParseError, InvalidRequest, MethodNotFound, InvalidParams, InternalError,
                UnknownType, UnknownSession, UnknownField, ReadOnlyField, WrongValueType,
                UnknownCommand, CommandDisabled, CommandFailed, OpenFailed, NeedsDeterministicMode,
                SchemaMismatch, SnapshotMismatch, StaleRevision, RequestCancelled)
}


def error_from_json(error: Any) -> BinderyError:
    """The exception for a response's ``error`` member; unknown codes give BinderyError itself."""
    if not isinstance(error, dict):
        return BinderyError(-32603, "malformed error object: %r" % (error,))
    code = error.get("code")
    message = error.get("message", "")
    if not isinstance(code, int) or isinstance(code, bool):
        return BinderyError(-32603, "malformed error code %r: %s" % (code, message), error.get("data"))
    cls = ERROR_CLASSES.get(code, BinderyError)
    return cls(code, str(message), error.get("data"))


class DaemonNotFound(BinderyException, FileNotFoundError):
    """No binderyd executable was found; ``tried`` lists each place looked at and why it failed."""

    def __init__(self, tried: Sequence[str]) -> None:
        self.tried: List[str] = list(tried)
        lines = "\n".join("  - " + place for place in self.tried)
        super().__init__("binderyd not found; looked in:\n" + lines + "\n"
                         "Install it: run `./scripts/install` in the Bindery repository (it builds binderyd and "
                         "copies it to ~/.local/bin, where every client looks), or pass Client(daemon=PATH) "
                         "or set BINDERYD=/path/to/binderyd.")


class DaemonExited(BinderyException):
    """The daemon ended (or closed its output) while the client still needed it.

    ``returncode`` is its exit status (negative: killed by that signal; None: unknown yet) and
    ``stderr`` its last lines on stderr, oldest first.
    """

    def __init__(self, returncode: Optional[int], stderr: Sequence[str], reason: str = "") -> None:
        self.returncode = returncode
        self.stderr: List[str] = list(stderr)
        self.reason = reason
        if returncode is None:
            status = "closed its output"
        elif returncode < 0:
            status = "was killed by signal %d" % -returncode
        else:
            status = "exited with code %d" % returncode
        text = "binderyd " + status + (" (%s)" % reason if reason else "")
        if self.stderr:
            text += "; last stderr lines:\n" + "\n".join("  | " + line for line in self.stderr)
        else:
            text += "; it wrote nothing to stderr"
        super().__init__(text)


class UntrustedSocket(BinderyException, PermissionError):
    """A shared daemon's socket failed a check made before the first byte: its directory or the
    socket is not this user's alone, or the process listening is another user's. ``path`` is the
    socket's path, ``reason`` what failed."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__("refusing to talk to %s: %s" % (path, reason))


class ClientClosed(BinderyException):
    """The client was closed; it cannot send any more requests."""


class RequestTimeout(BinderyException, TimeoutError):
    """A request did not answer in time. ``$/cancelRequest`` was sent for it.

    ``cancellation`` is what the daemon answered after the cancellation, when it answered within
    the client's grace period: usually a RequestCancelled; None when it did not answer in time.
    ``late_result`` holds a result that arrived during that grace period instead (the command won).
    ``request_id`` is None for a call that was never sent: made on a keyed session while the
    client reconnected to its shared daemon, which was not back in time.
    """

    def __init__(self, method: str, request_id: Optional[int], timeout: float) -> None:
        super().__init__("%s (request %d) did not answer within %gs; sent $/cancelRequest"
                         % (method, request_id, timeout) if request_id is not None else
                         "%s was not sent: the client was still reconnecting to its daemon after %gs"
                         % (method, timeout))
        self.method = method
        self.request_id = request_id
        self.timeout = timeout
        self.cancellation: Optional[BinderyError] = None
        self.late_result: Any = None


class WaitTimeout(BinderyException, TimeoutError):
    """``wait_until``'s predicate did not hold before the timeout."""


class FramingError(BinderyException, ValueError):
    """Bytes that are not a valid frame in the expected framing."""
