#!/usr/bin/env python3
"""Re-records transcripts: replays the client lines of each file through binderyd --record.

    python3 scripts/record-transcript.py Tests/Transcripts/email-basics.jsonl [...]

A file may hold only the client's side (a {"framing": ..., "arguments": [...]} line, then {"in": ...} /
{"inRaw": ...} lines); the daemon's answers are filled in. The client's lines are all sent at once,
pipelined; the daemon's order of handling makes the answers the same as when a replay sends each
line only after the answers before it. Review the result with `git diff` before committing:
the transcript is the specification of what the daemon must say.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DAEMON = os.environ.get("BINDERYD", os.path.join(ROOT, ".build", "debug", "binderyd"))


def frame(body: bytes, framing: str) -> bytes:
    if framing == "ndjson":
        return body + b"\n"
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def record(path: str) -> None:
    framing, arguments, inputs, trailer = "content-length", [], [], []
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
                elif "inRaw" in value:
                    inputs.append(value["inRaw"].encode())
                elif "exit" in value:
                    trailer.append(line)
    with tempfile.TemporaryDirectory() as scratch:
        recording = os.path.join(scratch, "recording.jsonl")
        stdin = b"".join(frame(body, framing) for body in inputs)
        subprocess.run([DAEMON, *arguments, "--record", recording], input=stdin, capture_output=True, timeout=60)
        with open(recording, "rb") as file:
            lines = file.read().splitlines()
    if not lines or not lines[0].startswith(b'{"framing"'):
        lines.insert(0, json.dumps({"framing": framing}).encode())
    with open(path, "wb") as file:
        file.write(b"\n".join(lines + trailer) + b"\n")
    outputs = sum(line.startswith(b'{"out":') for line in lines)
    print(f"recorded {path}: {len(inputs)} in, {outputs} out")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for argument in sys.argv[1:]:
        record(argument)
