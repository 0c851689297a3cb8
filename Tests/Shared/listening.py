"""Helpers for the tests of a shared daemon: a `binderyd --listen` process in a temporary
directory, and NDJSON clients on its socket (plain sockets, no client library)."""
import json
import os
import socket
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DAEMON = os.environ.get("BINDERYD", str(ROOT / ".build" / "debug" / "binderyd"))
APPD = os.environ.get("APPD", str(ROOT / ".build" / "debug" / "appd"))


class Listening:
    """`binderyd --listen DIR/daemon.sock [ARGS]`, waited for until its socket answers."""

    def __init__(self, directory, *arguments, wait=True, user=None, group=None, prefix=(), daemon=None):
        self.directory = Path(directory)
        self.path = str(self.directory / "daemon.sock")
        command = [*prefix, daemon or DAEMON, "--listen", self.path, *arguments]
        if user:
            command = ["setpriv", f"--reuid={user}", f"--regid={group}", "--clear-groups", *command]
        self.stderr_path = self.directory.parent / (self.directory.name + ".stderr")
        self.stderr = open(self.stderr_path, "wb")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=self.stderr)
        if wait:
            self.wait_listening()

    def wait_listening(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "listening on" in self.log():
                return
            if self.process.poll() is not None:
                raise AssertionError(f"daemon exited with {self.process.returncode}: {self.log()}")
            time.sleep(0.01)
        raise AssertionError("daemon did not listen: " + self.log())

    def log(self):
        return self.stderr_path.read_text(errors="replace")

    def client(self):
        return Client(self.path)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.stderr.close()


class Client:
    """One connection speaking NDJSON: `request` sends and returns the response, keeping every
    notification that came before it in `notes` (in order)."""

    def __init__(self, path):
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.settimeout(10)
        self.socket.connect(path)
        self.file = self.socket.makefile("rb")
        self.next_id = 0
        self.notes = []

    def send(self, message):
        self.socket.sendall((json.dumps(message, separators=(",", ":")) + "\n").encode())

    def read(self):
        line = self.file.readline()
        if not line:
            return None
        return json.loads(line)

    def request(self, method, **params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            assert message is not None, f"connection closed before the answer to {method}"
            if "id" in message and message["id"] == self.next_id:
                return message
            self.notes.append(message)

    def result(self, method, **params):
        answer = self.request(method, **params)
        assert "result" in answer, answer
        return answer["result"]

    def take_notes(self):
        notes, self.notes = self.notes, []
        return notes

    def close(self):
        self.file.close()  # makefile's reference too, or the socket stays open
        self.socket.close()
