#!/usr/bin/env python3
"""Re-records transcripts: replays the client lines of each file through binderyd --record.

    python3 scripts/record-transcript.py Tests/Transcripts/email-basics.jsonl [...]

A file may hold only the client's side (a {"framing": ..., "arguments": [...]} line, then {"in": ...} /
{"inRaw": ...} lines); the daemon's answers are filled in. The client's lines are sent one at a time,
each once the daemon has answered the one before (or, for a notification or an async command that
answers later, once it has been quiet for a moment), so the transcript reads as a conversation.
Review the result with `git diff` before committing: the transcript is the specification of what
the daemon must say.
"""
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading

QUIET = 0.3  # seconds without output after which a message that gets no answer (yet) is done

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAEMONS = {
    "binderyd": os.environ.get("BINDERYD", os.path.join(ROOT, ".build", "debug", "binderyd")),
    "appd": os.environ.get("APPD", os.path.join(ROOT, ".build", "debug", "appd")),
}


def frame(body: bytes, framing: str) -> bytes:
    if framing == "ndjson":
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def record(path: str) -> None:
    framing, arguments, inputs, trailer, daemon = "content-length", [], [], [], "binderyd"
    with open(path, "rb") as file:
        for line in file.read().splitlines():
            if not line.strip():
                continue
            if line.startswith(b'{"in":'):
                inputs.append(line[len(b'{"in":'):-1])
            elif line.startswith(b'{"out":'):
                continue
            else:
                value = json.loads(line)
                if "framing" in value:
                    framing = value["framing"]
                    arguments = value.get("arguments", [])
                    daemon = value.get("daemon", daemon)
                elif "inRaw" in value:
                    inputs.append(value["inRaw"].encode())
                elif "exit" in value:
                    trailer.append(line)
    with tempfile.TemporaryDirectory() as scratch:
        recording = os.path.join(scratch, "recording.jsonl")
        converse(inputs, framing, [DAEMONS[daemon], *arguments, "--record", recording])
        with open(recording, "rb") as file:
            lines = file.read().splitlines()
    if daemon != "binderyd" and lines and lines[0].startswith(b'{"framing"'):
        header = json.loads(lines[0])
        lines[0] = json.dumps({"framing": header["framing"], "daemon": daemon, "arguments": header.get("arguments", [])},
                              separators=(",", ":")).encode()
    if not lines or not lines[0].startswith(b'{"framing"'):
        lines.insert(0, json.dumps({"framing": framing}).encode())
    with open(path, "wb") as file:
        file.write(b"\n".join(lines + trailer) + b"\n")
    outputs = sum(line.startswith(b'{"out":') for line in lines)
    print(f"recorded {path}: {len(inputs)} in, {outputs} out")


def converse(inputs, framing, command):
    """Sends each input, then waits for its answer (or for quiet), then closes stdin and waits."""
    daemon = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    answers = queue.Queue()
    threading.Thread(target=read_bodies, args=(daemon.stdout, answers), daemon=True).start()
    for body in inputs:
        try:
            daemon.stdin.write(frame(body, framing))
            daemon.stdin.flush()
        except BrokenPipeError:  # the daemon ended (after `exit`): what it did not read is not recorded
            break
        wait_for_answer(body, answers)
    try:
        daemon.stdin.close()
    except BrokenPipeError:
        pass
    daemon.wait(timeout=60)


def wait_for_answer(body, answers):
    try:
        sent = json.loads(body)
    except ValueError:
        sent = None
    wanted = None
    if isinstance(sent, dict) and "id" in sent and "method" in sent:
        wanted = ("id", sent["id"])
    elif isinstance(sent, list) and any(isinstance(e, dict) and "id" in e for e in sent):
        wanted = ("array", None)
    while True:
        try:
            answer = answers.get(timeout=QUIET)
        except queue.Empty:
            return
        if wanted is None:
            continue
        kind, value = wanted
        if kind == "array" and isinstance(answer, list):
            return
        if kind == "id" and isinstance(answer, dict) and answer.get("id") == value and "method" not in answer:
            return


def read_bodies(stream, answers):
    """Puts every message the daemon writes, parsed, on `answers` (either framing)."""
    buffer = b""
    while True:
        chunk = stream.read1(65536)
        if not chunk:
            return
        buffer += chunk
        while True:
            if buffer.startswith(b"Content-Length:"):
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    break
                length = int(buffer[len(b"Content-Length:"):end])
                if len(buffer) < end + 4 + length:
                    break
                body, buffer = buffer[end + 4:end + 4 + length], buffer[end + 4 + length:]
            else:
                newline = buffer.find(b"\n")
                if newline < 0:
                    break
                body, buffer = buffer[:newline], buffer[newline + 1:]
            answers.put(json.loads(body))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for argument in sys.argv[1:]:
        record(argument)
