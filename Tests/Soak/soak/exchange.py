"""The exchange with one daemon: the input log kept for reproducers, sending and receiving through the
model, waiting for answers, ending the daemon, and the report lines of the messages that crossed."""
import base64
import collections
import json
import queue
import signal
import tempfile
import time

from .constants import RESPONSE_TIMEOUT
from .jsonwire import has_lone_surrogate
from .model import Model
from .records import Violation
from .transport import Daemon, END_OF_OUTPUT, frame


class InputLog:
    """Everything sent, on disk (a long soak sends millions of messages), for the reproducer."""

    def __init__(self):
        self.file = tempfile.TemporaryFile("w+")
        self.count = 0

    def add(self, t, data, stream, nulls):
        self.count += 1
        record = {"t": round(t, 4), "b": base64.b64encode(data).decode()}
        if stream:
            record["stream"] = nulls
        self.file.write(json.dumps(record) + "\n")

    def records(self):
        self.file.flush()
        self.file.seek(0)
        return [json.loads(line) for line in self.file]


class Exchange:
    """The client side of one daemon: sends (through the model), receives, keeps the recent
    messages for the report. Shared by the soak and the reproducer's replays."""

    def __init__(self, daemon_path, arguments, framing, deterministic, log_input=True):
        self.framing, self.deterministic = framing, deterministic
        self.daemon = Daemon(daemon_path, arguments, framing)
        self.model = Model(deterministic)
        self.started = time.monotonic()
        self.recent_in = collections.deque(maxlen=40)
        self.recent_out = collections.deque(maxlen=40)
        self.input_log = InputLog() if log_input else None
        self.operations = 0
        self.output_ended = False

    def send_body(self, body, messages=1):
        self.model.on_send(body)
        self.operations += messages
        now = time.monotonic()
        self.recent_in.append((now, body))
        if self.input_log is not None:
            self.input_log.add(now - self.started, body, False, 0)
        self.daemon.queue_bytes(frame(body, self.framing))

    def send_stream(self, data, nulls):
        self.model.on_send_stream(nulls)
        self.operations += 1
        now = time.monotonic()
        self.recent_in.append((now, data))
        if self.input_log is not None:
            self.input_log.add(now - self.started, data, True, nulls)
        self.daemon.queue_bytes(data)

    def receive(self, item):
        if item is END_OF_OUTPUT:
            self.output_ended = True
            return
        self.recent_out.append((item.time, item.raw))
        self.model.on_receive(item)

    def drain(self):
        """Handles whatever has arrived, without waiting."""
        inbox = self.daemon.inbox
        while not self.output_ended:
            try:
                item = inbox.get_nowait()
            except queue.Empty:
                return
            self.receive(item)
            if self.output_ended and not self.model.exit_sent:
                self._died()

    def wait_until(self, condition, timeout, what):
        self.daemon.flush()
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise Violation("response", f"{what}: nothing for {timeout:.0f} s (the daemon hangs)")
            try:
                item = self.daemon.inbox.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            self.receive(item)
            if self.output_ended and not self.model.exit_sent:
                self._died()

    def _died(self):
        code = self.daemon.wait(2)
        raise Violation("exit", f"binderyd closed its output while the client was still sending "
                                f"({describe_exit(code)})")

    def end(self):
        """Closes stdin, reads to the end, checks the exit code and that all was answered."""
        self.model.on_input_end()
        self.daemon.close_input()
        deadline = time.monotonic() + RESPONSE_TIMEOUT
        while not self.output_ended:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Violation("exit", f"binderyd did not close its output within {RESPONSE_TIMEOUT:.0f} s "
                                        f"of the end of its input")
            try:
                self.receive(self.daemon.inbox.get(timeout=left))
            except queue.Empty:
                pass
        code = self.daemon.wait(5)
        if code != self.model.exit_code:
            raise Violation("exit", f"binderyd ended with {describe_exit(code)}; expected exit code "
                                    f"{self.model.exit_code}")
        self.model.check_all_answered()

    def report_lines(self):
        entries = [(t, "in", b) for t, b in self.recent_in] + [(t, "out", b) for t, b in self.recent_out]
        entries.sort(key=lambda e: e[0])
        return [message_line(direction, body) for _, direction, body in entries[-40:]]

    def close(self):
        self.daemon.kill()


def describe_exit(code):
    if code is None:
        return "no exit yet"
    if code < 0:
        return f"signal {signal.Signals(-code).name}" if -code in signal.valid_signals() else f"signal {-code}"
    return f"exit code {code}"


def message_line(direction, body):
    """One NDJSON line: {"in": message} / {"out": message}, or ...Raw with the text."""
    try:
        if len(body) > 4000:
            raise ValueError("long")
        value = json.loads(body.decode("utf-8"))
        return json.dumps({direction: value}, ensure_ascii=has_lone_surrogate(value))
    except (ValueError, UnicodeDecodeError, RecursionError):
        text = body.decode("utf-8", "replace")
        if len(text) > 4000:
            text = text[:4000] + f"…({len(body)} bytes)"
        return json.dumps({direction + "Raw": text}, ensure_ascii=False)
