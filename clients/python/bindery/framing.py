"""Message framing on a byte stream: LSP's Content-Length headers, or newline-delimited JSON.

Pure byte handling with no I/O, so the sync client, the asyncio client and the transcript replay
in the tests share it. The daemon answers in the framing the client speaks first.
"""
from __future__ import annotations

from typing import List, Optional

from .errors import FramingError

__all__ = ["CONTENT_LENGTH", "NDJSON", "FRAMINGS", "encode_frame", "FrameDecoder"]

CONTENT_LENGTH = "content-length"
NDJSON = "ndjson"
FRAMINGS = (CONTENT_LENGTH, NDJSON)


def _check(framing: str) -> str:
    if framing not in FRAMINGS:
        raise ValueError("unknown framing %r; use %r or %r" % (framing, CONTENT_LENGTH, NDJSON))
    return framing


def encode_frame(body: bytes, framing: str = CONTENT_LENGTH) -> bytes:
    """One message ready to write: only a Content-Length header (as the daemon does), or a line."""
    _check(framing)
    if framing == NDJSON:
        if b"\n" in body:
            # A raw newline would split the message in two; JSON never needs one outside strings.
            raise FramingError("an NDJSON body cannot contain a newline")
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class FrameDecoder:
    """Turns chunks of bytes, split anywhere, into message bodies.

    ``feed`` returns the bodies completed by a chunk; ``finish`` is called at end of stream and
    returns a last NDJSON line that had no newline. A bad header block raises FramingError (the
    stream cannot be trusted after it, so the caller treats it as a broken connection).
    """

    def __init__(self, framing: str = CONTENT_LENGTH) -> None:
        self.framing = _check(framing)
        self._buffer = bytearray()
        self._length: Optional[int] = None  # body length once a header block is read

    def feed(self, data: bytes) -> List[bytes]:
        """Appends ``data``; returns every body it completed, in order."""
        self._buffer += data
        bodies: List[bytes] = []
        while True:
            body = self._next_line() if self.framing == NDJSON else self._next_frame()
            if body is None:
                return bodies
            bodies.append(body)

    def finish(self) -> List[bytes]:
        """End of stream: a last NDJSON line without newline; raises on a cut-off LSP frame."""
        rest = bytes(self._buffer)
        self._buffer.clear()
        if self.framing == NDJSON:
            return [rest] if rest.strip() else []
        if self._length is not None or rest.strip():
            raise FramingError("stream ended inside a frame (%d bytes pending)" % len(rest))
        return []

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a whole message."""
        return len(self._buffer)

    def _next_line(self) -> Optional[bytes]:
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                return None
            line = bytes(self._buffer[:end])
            del self._buffer[:end + 1]
            if line.endswith(b"\r"):
                line = line[:-1]
            if line.strip():  # blank lines between messages are allowed
                return line

    def _next_frame(self) -> Optional[bytes]:
        if self._length is None:
            self._length = self._read_headers()
            if self._length is None:
                return None
        if len(self._buffer) < self._length:
            return None
        body = bytes(self._buffer[:self._length])
        del self._buffer[:self._length]
        self._length = None
        return body

    def _read_headers(self) -> Optional[int]:
        # Accept both "\r\n\r\n" and "\n\n" as the end of the header block, like the daemon.
        while self._buffer.startswith((b"\r\n", b"\n")):
            del self._buffer[:2 if self._buffer.startswith(b"\r\n") else 1]
        ends = [i for i in (self._buffer.find(b"\r\n\r\n"), self._buffer.find(b"\n\n")) if i >= 0]
        if not ends:
            if len(self._buffer) > 65536:
                raise FramingError("no end of header block in 64 KiB")
            return None
        end = min(ends)
        block = bytes(self._buffer[:end])
        del self._buffer[:end + (4 if self._buffer[end:end + 4] == b"\r\n\r\n" else 2)]
        length: Optional[int] = None
        for raw in block.replace(b"\r\n", b"\n").split(b"\n"):
            name, colon, value = raw.partition(b":")
            if not colon:
                raise FramingError("header line without a colon: %r" % raw)
            if name.strip().lower() != b"content-length":
                continue  # Content-Type and others are ignored
            text = value.strip()
            if not text.isdigit():
                raise FramingError("Content-Length is not a non-negative integer: %r" % text)
            if length is not None and length != int(text):
                raise FramingError("two different Content-Length values")
            length = int(text)
        if length is None:
            raise FramingError("header block without Content-Length: %r" % block)
        return length
