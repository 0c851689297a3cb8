"""Replays every recorded transcript through the client's own framing layer, byte for byte.

Each ``in`` body is sent as it is written in the file (``inRaw`` as its text), framed per the
file's framing; each ``out`` body must come back identical; then stdin is closed and the daemon
must write nothing more and exit with the file's ``exit`` code (default 0).
"""
from __future__ import annotations

import glob
import json
import os
import queue
import subprocess
import threading
from typing import List, Optional, Tuple

import pytest

from bindery.framing import CONTENT_LENGTH, FRAMINGS, FrameDecoder, encode_frame
from conftest import TRANSCRIPTS

FILES = sorted(glob.glob(os.path.join(TRANSCRIPTS, "*.jsonl")))
READ_TIMEOUT = 10.0  # hang guard per expected message, not a timing assertion


class Transcript:
    """The parsed file: framing, daemon arguments, steps ('send'|'expect', body) and exit code."""

    def __init__(self, path: str) -> None:
        self.framing = CONTENT_LENGTH
        self.daemon = "binderyd"  # or "appd": the daemon the transcript was recorded with
        self.arguments: List[str] = []
        self.steps: List[Tuple[str, bytes]] = []
        self.exit_code = 0
        with open(path, "rb") as file:
            for line in file.read().split(b"\n"):
                if not line.strip():
                    continue
                for prefix, kind in ((b'{"in":', "send"), (b'{"out":', "expect")):
                    if line.startswith(prefix) and line.endswith(b"}"):
                        self.steps.append((kind, line[len(prefix):-1]))  # the body, byte for byte
                        break
                else:
                    value = json.loads(line)
                    if "inRaw" in value:
                        self.steps.append(("send", value["inRaw"].encode("utf-8")))
                    elif "framing" in value:
                        assert value["framing"] in FRAMINGS, value
                        self.framing = value["framing"]
                        self.arguments = list(value.get("arguments", []))
                        self.daemon = value.get("daemon", "binderyd")
                    elif "exit" in value:
                        self.exit_code = value["exit"]
                    else:
                        raise AssertionError("unrecognised transcript line: %r" % line)


class RawDaemon:
    """binderyd on pipes, read through bindery.framing on a thread (None in the queue: end of output)."""

    def __init__(self, daemon: str, arguments: List[str], framing: str) -> None:
        self.framing = framing
        self.process = subprocess.Popen([daemon, *arguments], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0)
        self.bodies: "queue.Queue[Optional[bytes]]" = queue.Queue()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        decoder = FrameDecoder(self.framing)
        assert self.process.stdout is not None
        try:
            while True:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    for body in decoder.finish():
                        self.bodies.put(body)
                    return
                for body in decoder.feed(chunk):
                    self.bodies.put(body)
        finally:
            self.bodies.put(None)

    def send(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(encode_frame(body, self.framing))
        self.process.stdin.flush()

    def next_body(self) -> Optional[bytes]:
        try:
            return self.bodies.get(timeout=READ_TIMEOUT)
        except queue.Empty:
            raise AssertionError("binderyd wrote nothing for %gs" % READ_TIMEOUT) from None

    def close_input(self) -> None:
        assert self.process.stdin is not None
        if not self.process.stdin.closed:
            try:
                self.process.stdin.close()
            except BrokenPipeError:  # the daemon may have exited already (after `exit`)
                pass

    def finish(self) -> Tuple[Optional[bytes], int, bytes]:
        """Closes stdin; returns (anything written after that, exit code, stderr)."""
        self.close_input()
        extra = self.next_body()
        code = self.process.wait(timeout=READ_TIMEOUT)
        assert self.process.stderr is not None
        return extra, code, self.process.stderr.read()

    def close(self) -> None:
        """Kills the daemon if it still runs and closes the pipes."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.reader.join(READ_TIMEOUT)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None and not stream.closed:
                stream.close()


def test_there_are_transcripts() -> None:
    assert len(FILES) >= 10, "transcripts found under %s: %s" % (TRANSCRIPTS, FILES)


@pytest.mark.parametrize("path", FILES, ids=[os.path.basename(p) for p in FILES])
def test_transcript_replays_byte_for_byte(daemon_path: str, path: str, request: pytest.FixtureRequest) -> None:
    transcript = Transcript(path)
    # A transcript recorded with appd (its first line says "daemon": "appd") replays against appd.
    executable = request.getfixturevalue("appd_path") if transcript.daemon == "appd" else daemon_path
    daemon = RawDaemon(executable, transcript.arguments, transcript.framing)
    # Input closes right after the last "in" line, as when the transcript was recorded: the daemon
    # answers everything it has read either way, and what it does at end of input is recorded too.
    last_send = max((i for i, (kind, _) in enumerate(transcript.steps) if kind == "send"), default=-1)
    try:
        for index, (kind, body) in enumerate(transcript.steps):
            if kind == "send":
                daemon.send(body)
                if index == last_send:
                    daemon.close_input()
                continue
            actual = daemon.next_body()
            assert actual is not None, "step %d: binderyd ended its output; expected %s" % (index, body.decode())
            assert actual == body, "step %d differs:\n  expected %s\n  actual   %s" % (
                index, body.decode(), actual.decode())
        extra, code, stderr = daemon.finish()
        assert extra is None, "unexpected output after the last step: %r" % extra
        assert code == transcript.exit_code, "exit code %d, expected %d; stderr: %s" % (
            code, transcript.exit_code, stderr.decode(errors="replace"))
    finally:
        daemon.close()
