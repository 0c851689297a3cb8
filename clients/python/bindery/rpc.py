"""JSON-RPC 2.0 routing shared by the sync and asyncio connections, free of I/O and of waiting.

A subclass transmits bytes and wakes waiters; this class numbers requests, keeps the table of
pending ones, and routes what the daemon sends: responses by id (errors mapped to their classes),
``didChange`` to a handler, anything else to notification handlers. Everything here runs on the
reader (thread or task), in arrival order, which is what makes ``state`` current before a
response is handed to its caller. ``endpoint.py`` adds the connection's life and the waiting.
"""
from __future__ import annotations

import json
import logging
import threading
from typing import Any, Callable, Dict, List, Optional

from .errors import BinderyError, InvalidParams, error_from_json
from .framing import CONTENT_LENGTH, FrameDecoder, encode_frame

__all__ = ["Pending", "RpcPeer", "encode_json", "CANCEL_METHOD"]

logger = logging.getLogger("bindery")
wire = logging.getLogger("bindery.wire")  # every body sent (-->) and received (<--), at DEBUG

CANCEL_METHOD = "$/cancelRequest"
ResultHook = Callable[[Any, "Pending"], None]
ErrorHook = Callable[[BaseException], None]


_DOUBLE_MAX = 1.7976931348623157e308


def _check_numbers(value: Any) -> None:
    # binderyd reads numbers as doubles: beyond their range a body is a -32700 with id null, so the
    # request would never get its own answer. Refuse such integers here instead of waiting forever.
    if isinstance(value, int) and not isinstance(value, bool):
        if abs(value) > _DOUBLE_MAX:
            raise InvalidParams.make("integer out of the range JSON peers can read: %d digits" % len(str(abs(value))),
                                     {"found": "integer"}, local=True)
    elif isinstance(value, dict):
        for item in value.values():
            _check_numbers(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _check_numbers(item)


def encode_json(message: Any) -> bytes:
    """Compact UTF-8 JSON. NaN, infinities and integers beyond a double's range are refused."""
    _check_numbers(message)
    try:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
    except ValueError as error:  # NaN or infinity: JSON has no spelling for them
        raise InvalidParams.make("cannot send this value as JSON: %s" % error, local=True) from None


class Pending:
    """A request sent and not yet answered.

    ``on_result(result, pending)`` runs on the reader before any waiter wakes (so follow-up state
    is in place first); it runs even when the caller stopped waiting (timeout, interrupt), since
    the daemon still acted.
    """

    def __init__(self, request_id: int, method: str, params: Any,
                 on_result: Optional[ResultHook] = None, on_error: Optional[ErrorHook] = None) -> None:
        self.id = request_id
        self.method = method
        self.params = params
        self.on_result = on_result
        self.on_error = on_error
        self.abandoned = False
        self.done = False
        self.result: Any = None
        self.error: Optional[BaseException] = None

    def finish(self, result: Any = None, error: Optional[BaseException] = None) -> None:
        """Records the outcome, runs the hooks, then wakes the waiter (``_wake``)."""
        if self.done:
            return
        try:
            if error is None and self.on_result is not None:
                self.on_result(result, self)
            elif error is not None and self.on_error is not None:
                self.on_error(error)
        except Exception as hook_error:  # a hook bug must not kill the reader
            logger.exception("bindery: handling the answer to %s failed", self.method)
            if error is None:
                error = hook_error
        self.result = result
        self.error = error
        self.done = True
        self._wake()

    def outcome(self) -> Any:
        """The result, or raises the error, of an answered request."""
        if self.error is not None:
            raise self.error
        return self.result

    def _wake(self) -> None:
        """Overridden: signal whoever waits (a threading.Event, an asyncio.Future)."""


class RpcPeer:
    """The client end of the JSON-RPC conversation, minus transport and waiting."""

    pending_class = Pending

    def __init__(self, framing: str = CONTENT_LENGTH) -> None:
        self.framing = framing
        self.decoder = FrameDecoder(framing)
        self._lock = threading.Lock()  # the pending table and the id counter
        self._next_id = 1
        self._pending: Dict[int, Pending] = {}
        self._failed = False  # set by fail_all: no request may be registered after it
        #: Called on the reader with a didChange's params.
        self.on_did_change: Optional[Callable[[Dict[str, Any]], None]] = None
        #: Called with each request once it has its id, before a byte of it is written.
        self.on_sent: Optional[Callable[[Pending], None]] = None
        #: Called on the reader with each response (the request, its result, its error) before
        #: the request's own hooks run and its caller wakes.
        self.on_answer: Optional[Callable[[Pending, Any, Optional[BaseException]], None]] = None
        #: Called on the reader with (method, params) for other notifications from the daemon.
        self.notification_handlers: List[Callable[[str, Any], None]] = []
        #: Called with error responses that name no pending request (id null: unreadable input).
        self.orphan_error_handlers: List[Callable[[BinderyError], None]] = []

    # Subclasses provide these.

    def _transmit(self, data: bytes) -> None:
        """Writes framed bytes to the daemon (the transport's job)."""
        raise NotImplementedError

    def check_usable(self) -> None:
        """Raises when no request can be sent any more (daemon gone, client closed)."""

    # Sending.

    def send_message(self, message: Any) -> None:
        self.send_body(encode_json(message))

    def send_body(self, body: bytes) -> None:
        """Frames and writes one message body."""
        if wire.isEnabledFor(logging.DEBUG):
            wire.debug("--> %s", body.decode("utf-8", "replace"))
        self._transmit(encode_frame(body, self.framing))

    @staticmethod
    def _body(method: str, params: Any, request_id: Optional[int] = None, params_json: Optional[bytes] = None) -> bytes:
        head = b'{"jsonrpc":"2.0",' + (b'"id":%d,' % request_id if request_id is not None else b"")
        tail = b',"params":' + params_json + b"}" if params_json is not None else b"}"
        return head + b'"method":' + encode_json(method) + tail

    def notify(self, method: str, params: Any = None) -> None:
        """Sends a notification (no answer comes)."""
        self.check_usable()
        self.send_body(self._body(method, params, None, encode_json(params) if params is not None else None))

    def send_request(self, method: str, params: Any = None, on_result: Optional[ResultHook] = None,
                     on_error: Optional[ErrorHook] = None) -> Pending:
        """Sends a request without waiting; the Pending is registered before a byte is written.

        Params that cannot be encoded raise before an id is taken.
        """
        self.check_usable()
        params_json = encode_json(params) if params is not None else None
        with self._lock:
            failed = self._failed
            if not failed:
                request_id = self._next_id
                self._next_id += 1
                pending = self.pending_class(request_id, method, params, on_result, on_error)
                self._pending[request_id] = pending
        if failed:  # lost between the check and the registration
            self.check_usable()
            raise RuntimeError("bindery: the connection is gone")
        try:
            if self.on_sent is not None:
                self.on_sent(pending)
            self.send_body(self._body(method, params, request_id, params_json))
        except BaseException:
            with self._lock:
                self._pending.pop(request_id, None)
            raise
        return pending

    def cancel(self, pending: Pending) -> None:
        """Stops waiting for ``pending`` and asks the daemon to cancel it (LSP's $/cancelRequest).

        The entry stays in the table so that its hooks still run when the late answer comes.
        """
        pending.abandoned = True
        if pending.done:
            return
        try:
            self.notify(CANCEL_METHOD, {"id": pending.id})
        except Exception:  # the daemon is gone: nothing left to cancel
            logger.debug("bindery: could not send $/cancelRequest for %d", pending.id, exc_info=True)

    def pending_count(self) -> int:
        with self._lock:
            return len(self._pending)

    # Receiving: called by the reader, in arrival order.

    def receive(self, data: bytes) -> None:
        """Feeds bytes read from the daemon; handles every message they complete."""
        for body in self.decoder.feed(data):
            self.handle_body(body)

    def handle_body(self, body: bytes) -> None:
        if wire.isEnabledFor(logging.DEBUG):
            wire.debug("<-- %s", body.decode("utf-8", "replace"))
        try:
            message = json.loads(body.decode("utf-8"))
        except ValueError:
            logger.warning("bindery: the daemon sent a body that is not JSON: %r", body[:200])
            return
        self.handle_message(message)

    def handle_message(self, message: Any) -> None:
        """Routes one parsed message (or a batch of them)."""
        if isinstance(message, list):
            for element in message:
                self.handle_message(element)
            return
        if not isinstance(message, dict):
            logger.warning("bindery: ignoring a message that is not an object: %r", message)
            return
        method = message.get("method")
        if isinstance(method, str):
            if "id" in message:
                # The daemon sends no requests; a correct peer still answers one.
                self.send_message({"jsonrpc": "2.0", "id": message["id"], "error": {
                    "code": -32601, "message": "Method not found: %s (the client serves no requests)" % method}})
            else:
                self._handle_notification(method, message.get("params"))
            return
        self._handle_response(message)

    def _handle_notification(self, method: str, params: Any) -> None:
        if method == "didChange" and isinstance(params, dict):
            if self.on_did_change is not None:
                self.on_did_change(params)
            return
        for handler in list(self.notification_handlers):
            handler(method, params)

    def _handle_response(self, message: Dict[str, Any]) -> None:
        request_id = message.get("id")
        pending: Optional[Pending] = None
        if isinstance(request_id, int) and not isinstance(request_id, bool):
            with self._lock:
                pending = self._pending.pop(request_id, None)
        if "error" in message:
            error = error_from_json(message["error"])
            if pending is None:
                for handler in list(self.orphan_error_handlers):
                    handler(error)
                if not self.orphan_error_handlers:
                    logger.warning("bindery: error for no pending request (id %r): %s", request_id, error)
                return
            self._answer(pending, None, error)
            pending.finish(error=error)
        elif pending is not None:
            self._answer(pending, message.get("result"), None)
            pending.finish(result=message.get("result"))
        else:
            logger.debug("bindery: response for unknown id %r dropped", request_id)

    def _answer(self, pending: Pending, result: Any, error: Optional[BaseException]) -> None:
        try:
            if self.on_answer is not None:
                self.on_answer(pending, result, error)
        except Exception:  # a hook bug must not kill the reader
            logger.exception("bindery: folding the answer to %s failed", pending.method)

    def fail_all(self, make_error: Callable[[], BaseException]) -> None:
        """Fails every pending request at once, each with its own exception instance."""
        with self._lock:
            self._failed = True
            pendings = list(self._pending.values())
            self._pending.clear()
        for pending in pendings:
            pending.finish(error=make_error())
