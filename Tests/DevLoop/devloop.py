"""Shared by the bindery-dev tests, the editors' tests and the dev-loop benchmark: a small package
made by `bindery-dev --init` (a `greeting` view model, depending on this checkout by path), and a
client that drives bindery-dev over pipes.

The package lives in `.build/dev-loop/greeter` of this checkout, so its own `.build` (Bindery
compiled once) survives between runs; `fixture()` writes its sources afresh each time.

    python3 Tests/DevLoop/devloop.py fixture     # (re)writes the package and prints its folder
"""
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEV = os.environ.get("BINDERY_DEV", str(ROOT / ".build" / "debug" / "bindery-dev"))
PACKAGE = ROOT / ".build" / "dev-loop" / "greeter"
MODEL = PACKAGE / "Sources" / "greeter" / "GreetingViewModel.swift"
MAIN = PACKAGE / "Sources" / "greeter" / "main.swift"


def fixture():
    """Writes the package's sources as `bindery-dev --init` makes them; returns its folder."""
    PACKAGE.mkdir(parents=True, exist_ok=True)
    (PACKAGE / "Package.swift").unlink(missing_ok=True)
    shutil.rmtree(PACKAGE / "Sources", ignore_errors=True)
    subprocess.run([DEV, "--init", str(PACKAGE), "--bindery", str(ROOT)], check=True, stdout=subprocess.DEVNULL)
    return PACKAGE


_last_save = [0.0]


def save(path, text, burst=False):
    """Saves a file the way an editor does: a temporary written whole, renamed over the old one.

    Saves are kept 1.1 s apart, unless `burst` (a test of saves in quick succession): the build's
    incremental check compares modification times, and two saves within one tick of the file
    system's clock (a crashing main.swift, then the original put back) could leave the second
    unseen by the build (a flake of the suite under load)."""
    wait = _last_save[0] + 1.1 - time.monotonic()
    if wait > 0 and not burst:
        time.sleep(wait)
    _last_save[0] = time.monotonic()
    path = Path(path)
    temporary = path.with_name("." + path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


class DevClient:
    """bindery-dev over pipes, newline-delimited JSON; every message it writes is kept in order."""

    def __init__(self, package=PACKAGE, product="greeter", arguments=()):
        self._attach(subprocess.Popen(
            [DEV, "--package-path", str(package), "--product", product, *arguments],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE))

    @classmethod
    def attach(cls, process, skip_text=False):
        """A client of a process already started with pipes (a script that ends in bindery-dev);
        with skip_text, lines that are not JSON (what the script's other commands print) are skipped."""
        client = cls.__new__(cls)
        client._attach(process, skip_text)
        return client

    def _attach(self, process, skip_text=False):
        self.process = process
        self.skip_text = skip_text
        self.messages = queue.Queue()
        self.seen = []
        self.next_id = 0
        self.stderr = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            if self.skip_text and not line.lstrip().startswith((b"{", b"[")):
                continue
            self.messages.put(json.loads(line))
        self.messages.put(None)

    def _read_stderr(self):
        for line in self.process.stderr:
            self.stderr.append(line.decode(errors="replace"))

    def send(self, method, params=None, id=True):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        if id:
            self.next_id += 1
            message["id"] = self.next_id
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        return message.get("id")

    def next(self, timeout):
        message = self.messages.get(timeout=timeout)
        assert message is not None, "bindery-dev ended:\n" + "".join(self.stderr[-30:])
        self.seen.append(message)
        return message

    def wait_for(self, predicate, timeout=120, what="a message"):
        """Reads until a message satisfies `predicate`; returns (it, the messages before it)."""
        before = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {what} within {timeout} s; got {before}\n" + "".join(self.stderr[-30:])
            try:
                message = self.next(left)
            except queue.Empty:
                continue
            if predicate(message):
                return message, before
            before.append(message)

    def call(self, method, params=None, timeout=120):
        id = self.send(method, params)
        response, before = self.wait_for(lambda m: m.get("id") == id and "method" not in m, timeout, f"answer to {method}")
        return response, before

    def result(self, method, params=None, timeout=120):
        response, _ = self.call(method, params, timeout)
        assert "result" in response, response
        return response["result"]

    def notification(self, method, timeout=120):
        return self.wait_for(lambda m: m.get("method") == method, timeout, method)

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
        return "".join(self.stderr)


if __name__ == "__main__":
    if sys.argv[1:] == ["fixture"]:
        print(fixture())
    else:
        sys.exit(__doc__)
