"""Transport: binderyd as a child process on pipes, its output framed (NDJSON or Content-Length)
and read on a thread while the soak writes."""
import collections
import os
import queue
import re
import subprocess
import threading
import time

from .jsonwire import parse_daemon_body


class OutputFault:
    """Bytes on the daemon's stdout that are not a well-formed frame."""

    def __init__(self, data, reason):
        self.data, self.reason = data, reason


class NdjsonDecoder:
    def __init__(self):
        self.buffer = b""

    def feed(self, data):
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        return [line if line else OutputFault(b"\n", "an empty line") for line in lines]

    def leftover(self):
        return self.buffer


class ContentLengthDecoder:
    """The daemon writes exactly one header, Content-Length, in LSP framing."""
    HEADER = re.compile(rb"Content-Length: (0|[1-9][0-9]{0,9})\r\n\r\n")
    PREFIX = b"Content-Length: "

    def __init__(self):
        self.buffer = b""
        self.length = None

    def feed(self, data):
        self.buffer += data
        bodies, start = [], 0
        while True:
            if self.length is None:
                match = self.HEADER.match(self.buffer, start)
                if not match:
                    head = self.buffer[start:start + 32]
                    if not self.PREFIX.startswith(head[:len(self.PREFIX)]) or len(head) >= 32:
                        bodies.append(OutputFault(self.buffer[start:start + 200], "a malformed frame header"))
                        self.buffer = b""
                        return bodies
                    break
                self.length, start = int(match.group(1)), match.end()
            if len(self.buffer) - start < self.length:
                break
            bodies.append(self.buffer[start:start + self.length])
            start += self.length
            self.length = None
        self.buffer = self.buffer[start:]
        return bodies

    def leftover(self):
        return self.buffer


def frame(body, framing):
    if framing == "ndjson":
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Received:
    __slots__ = ("raw", "message", "fault", "time")

    def __init__(self, raw, message, fault, at):
        self.raw, self.message, self.fault, self.time = raw, message, fault, at


END_OF_OUTPUT = object()


class DaemonGone(Exception):
    pass


class Daemon:
    """binderyd on pipes. A thread reads its stdout all the time, so that the daemon never blocks
    writing (it would then stop reading, and our writes would block: protocol.md, Backpressure)."""

    def __init__(self, path, arguments, framing):
        self.framing = framing
        self.process = subprocess.Popen([path, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, bufsize=0)
        self.inbox = queue.SimpleQueue()
        self.stderr_tail = collections.deque(maxlen=20)
        self.pending_output = []
        self.input_closed = False
        self.threads = [threading.Thread(target=self._read_stdout, daemon=True),
                        threading.Thread(target=self._read_stderr, daemon=True)]
        for thread in self.threads:
            thread.start()

    def _read_stdout(self):
        decoder = NdjsonDecoder() if self.framing == "ndjson" else ContentLengthDecoder()
        fd = self.process.stdout.fileno()
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                break
            now = time.monotonic()
            for body in decoder.feed(data):
                self.inbox.put(self._parse(body, now))
        if decoder.leftover():
            self.inbox.put(Received(decoder.leftover(), None, "output ended inside a message", time.monotonic()))
        self.inbox.put(END_OF_OUTPUT)

    @staticmethod
    def _parse(body, now):
        if isinstance(body, OutputFault):
            return Received(body.data, None, body.reason, now)
        try:
            return Received(body, parse_daemon_body(body), None, now)
        except (ValueError, UnicodeDecodeError, RecursionError) as error:
            return Received(body, None, f"not JSON ({error})", now)

    def _read_stderr(self):
        for line in self.process.stderr:
            self.stderr_tail.append(line.decode("utf-8", "replace").rstrip("\n"))

    def queue_bytes(self, data):
        self.pending_output.append(data)

    def flush(self):
        if not self.pending_output or self.input_closed:
            return
        data, self.pending_output = b"".join(self.pending_output), []
        view, fd = memoryview(data), self.process.stdin.fileno()
        try:
            while view:
                view = view[os.write(fd, view):]
        except (BrokenPipeError, OSError) as error:
            raise DaemonGone(f"writing to binderyd failed: {error}")

    def close_input(self):
        self.flush()
        self.input_closed = True
        try:
            self.process.stdin.close()
        except OSError:
            pass

    def wait(self, timeout):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        # Close the pipes only once the reader threads have seen their end: a descriptor closed
        # under a thread blocked reading it can be reused by the next daemon's pipe, and the old
        # thread would then steal that daemon's output.
        for thread in self.threads:
            thread.join(timeout=5)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
