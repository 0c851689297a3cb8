"""All five faces on one shared daemon, killed under them (issue 35, its last Done-when line).

The Python client (in this process, ``Client(socket="auto")``), a Node client (five_faces_node.mjs),
headless Neovim (five_faces_nvim.lua) and batch Emacs (five_faces_emacs.el), both through
``binderyd --remote auto``, and the web page in headless Chromium through ``bindery-web`` open the
same keyed form (``survey``, key ``five``) on the one daemon ``auto`` names in a temporary
``XDG_RUNTIME_DIR`` (its keyed forms kept under a temporary ``XDG_STATE_HOME``). Proved:

- a value the Python client sets shows in all five;
- after ``kill -9`` of that daemon, each face says it was killed by signal 9 (the clients through
  their errors — Node's says SIGKILL —, the editors in their buffers, the page in its status line)
  and that it reconnects, each reconnects by itself (no face is told to) — exactly one new daemon
  listening afterwards — and each shows the value again in the same form: the new daemon can only
  have it from the state directory. The first face to reopen the key gets ``restored: true``, the
  others attach to that live session; which is first is a race, so it is printed, not asserted;
- then a value the Node client writes reaches all five: every face is live on the new daemon.

``pytest -s`` prints how long each step took. The editors' drivers write every text their form's
buffer shows to nvim.jsonl and emacs.jsonl in the test's temporary directory, beside each
subprocess face's stderr: where to look when it fails.
"""
from __future__ import annotations

import faulthandler
import importlib.util
import json
import logging
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DAEMON = os.environ.get("BINDERYD", str(ROOT / ".build" / "debug" / "binderyd"))
TYPE, KEY = "survey", "five"
LIMIT = 30  # seconds for any one condition: generous, never a timing assertion


def load(name: str, path: Path) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(ROOT / "clients" / "python"))
from bindery import Client, DaemonExited  # noqa: E402

# The web tests' Bridge (a bindery-web process) and Page (a tab), used as they are.
web = load("bindery_web_test_support", ROOT / "clients" / "web" / "test" / "conftest.py")


def daemons_on(path: str) -> List[int]:
    """The daemons listening on ``path`` (their supervisors' ``--supervise-listen=PATH`` is one word)."""
    found = subprocess.run(["pgrep", "-f", "--", "--listen " + path], capture_output=True, text=True).stdout
    return [int(pid) for pid in found.split()]


def wait(condition: Callable[[], Any], what: str, limit: float = LIMIT) -> Any:
    return web.wait_for(condition, limit, what)


def flat(text: str) -> str:
    """Text with its runs of blanks as one space (Neovim breaks a long status line to the window)."""
    return re.sub(r"\s+", " ", text)


class Reports:
    """What a face's driver said, one JSON object a line: from a file it appends to, or a pipe."""

    def __init__(self, file: Optional[Path] = None, stream: Any = None) -> None:
        self.file = file
        self.lines: List[Dict[str, Any]] = []
        self.reader: Optional[threading.Thread] = None
        if stream is not None:
            self.reader = threading.Thread(target=self._drain, args=(stream,), daemon=True)
            self.reader.start()

    def _drain(self, stream: Any) -> None:
        for line in stream:
            self.lines.append(json.loads(line))

    def all(self) -> List[Dict[str, Any]]:
        if self.file is not None:
            text = self.file.read_text(encoding="utf-8") if self.file.exists() else ""
            self.lines = [json.loads(line) for line in text.split("\n")[:-1]]  # the last is unfinished
        return list(self.lines)

    def texts(self) -> List[str]:
        return [line["text"] for line in self.all() if "text" in line]

    def shown(self) -> str:
        texts = self.texts()
        return texts[-1] if texts else ""


@pytest.fixture
def home(tmp_path: Path, monkeypatch: Any) -> Iterator[Path]:
    """One XDG_RUNTIME_DIR (0700) and XDG_STATE_HOME for every face; the daemon stopped after."""
    if not os.access(DAEMON, os.X_OK):
        pytest.fail("This test runs the real binderyd: set BINDERYD (looked for %s)" % DAEMON, pytrace=False)
    faulthandler.dump_traceback_later(150, exit=True)  # hung: say where, rather than hang the suite
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("BINDERYD", DAEMON)  # every face's daemon: never another build
    yield tmp_path
    path = str(runtime / "bindery" / "daemon.sock")
    for pid in daemons_on(path):
        os.kill(pid, signal.SIGTERM)  # it would idle out after a minute
    faulthandler.cancel_dump_traceback_later()


def test_five_faces_on_one_killed_shared_daemon(home: Path, caplog: Any) -> None:
    caplog.set_level(logging.WARNING, logger="bindery")  # the Python client says its reconnect there
    began = time.monotonic()
    took: List[str] = []  # how long each step took, printed at the end (pytest -s shows it)

    def step(name: str) -> None:
        took.append("%s %.1f s" % (name, time.monotonic() - began))

    socket = str(home / "runtime" / "bindery" / "daemon.sock")
    stop = home / "stop"  # Emacs's driver exits when it appears
    env = {**os.environ, "FIVE_TYPE": TYPE, "FIVE_KEY": KEY, "FIVE_STOP": str(stop)}
    started: List[subprocess.Popen] = []
    cleanups: List[Callable[[], None]] = []
    readers: List[Any] = []

    def start(argv: List[str], name: str, **options: Any) -> subprocess.Popen:
        """A face's process, its stderr kept in the test's directory as NAME.stderr."""
        with open(home / (name + ".stderr"), "wb") as stderr:
            process = subprocess.Popen(argv, stderr=stderr, **options)
        started.append(process)
        return process

    python_events: List[Any] = []
    python_back = threading.Event()

    def heard(event: Any) -> None:
        python_events.append(event)
        if event.kind == "reconnected":
            python_back.set()

    emacs_process: Optional[subprocess.Popen] = None
    # The Python client first: it starts the shared daemon the others then find.
    client = Client(DAEMON, socket="auto", timeout=LIMIT)
    try:
        client.on_connection(heard)
        form = client.open(TYPE, key=KEY)
        assert daemons_on(socket), "the Python client started no daemon on " + socket

        nvim = Reports(file=home / "nvim.jsonl")
        start(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "--cmd", "set rtp^=" + str(ROOT / "clients" / "nvim"),
               "-c", "runtime plugin/bindery.lua", "-c", "luafile " + str(HERE / "five_faces_nvim.lua")],
              "nvim", env={**env, "FIVE_OUT": str(nvim.file)}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        emacs = Reports(file=home / "emacs.jsonl")
        emacs_process = start(["emacs", "-Q", "--batch", "-L", str(ROOT / "clients" / "emacs"), "-l", "bindery",
               "-l", str(HERE / "five_faces_emacs.el")],
              "emacs", env={**env, "FIVE_OUT": str(emacs.file)}, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        node_process = start(["node", str(HERE / "five_faces_node.mjs"), str(ROOT / "clients" / "node" / "index.js"),
                              TYPE, KEY], "node", env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, bufsize=1)
        node = Reports(stream=node_process.stdout)
        readers.append(node.reader)
        bridge = web.Bridge(shlex.quote(DAEMON) + " --remote auto")
        cleanups += [bridge.stop, bridge.process.stdout.close, bridge.process.stderr.close]
        driver = web.start_chromium()  # headless, as the web tests start it
        cleanups.append(driver.quit)
        page = web.Page(driver, driver.current_window_handle, bridge).load("#/%s/%s" % (TYPE, KEY))
        page.form(TYPE, timeout=LIMIT)

        def web_name() -> Optional[str]:
            forms = driver.find_elements("css selector", "section.form[data-type='%s'][data-state='open']" % TYPE)
            return forms[0].find_element("name", "name").get_attribute("value") if forms else None

        def node_name() -> Optional[str]:
            told = [line for line in node.all() if line["event"] in ("state", "reconnected")]
            if not told:
                return None
            return (told[-1]["name"] if told[-1]["event"] == "state" else told[-1]["names"][0]) or ""

        # What each face shows as the form's name: "" when empty, None when it shows no form.
        names: Dict[str, Callable[[], Optional[str]]] = {
            "python": lambda: form.state.get("name") or "",
            "node": node_name,
            "neovim": lambda: (re.findall(r"^Name: ?(.*)$", nvim.shown(), re.M) or [None])[0],
            "emacs": lambda: (re.findall(r"^Name: +\[(.*?) *\]$", emacs.shown(), re.M) or [None])[0],
            "web": web_name,
        }

        def all_show(value: str) -> Callable[[], bool]:
            return lambda: all(name() == value for name in names.values())

        def showing() -> str:
            return ", ".join("%s: %r" % (face, name()) for face, name in names.items())

        # All five attached to the one keyed session, then a value set by one shows in all five.
        wait(lambda: all(name() is not None for name in names.values()), "every face to open the form")
        step("all five attached")
        form.set("name", "Ada")
        try:
            wait(all_show("Ada"), "every face to show Ada")
        except AssertionError as error:
            raise AssertionError("%s (%s)" % (error, showing())) from None
        stored = home / "state" / "bindery" / "sessions"  # a folder per socket, written 250 ms after a change
        wait(lambda: any("Ada" in f.read_text(errors="replace") for f in stored.glob("*/session-*.json")),
             "the daemon to store the keyed form")

        web.keep_status_said(page.driver)
        [pid] = daemons_on(socket)
        os.kill(pid, signal.SIGKILL)
        step("killed")

        # Each face says what it was.
        forwarder = ("the daemon on %s (pid %d) was killed by signal 9 while this client was connected; "
                     "its log: %s.log" % (socket, pid, socket))
        assert python_back.wait(LIMIT), [event.kind for event in python_events]
        lost = python_events[0]
        assert lost.kind == "lost" and isinstance(lost.error, DaemonExited) and lost.error.returncode == -9
        assert "killed by signal 9 (the shared daemon on %s (pid %d)" % (socket, pid) in str(lost.error)
        assert python_events[1].kind == "reconnecting" and python_events[1].delay == 0.25
        assert "reconnecting to %s in 0.25 s" % socket in caplog.text and "reconnected to %s" % socket in caplog.text

        said = wait(lambda: [line for line in node.all() if line["event"] == "reconnecting"], "Node to reconnect")[0]
        assert said["signal"] == "SIGKILL" and said["name"] == "DaemonExitedError" and said["delay"] == 250, said
        assert "killed by SIGKILL (the shared daemon on %s (pid %d)" % (socket, pid) in said["message"], said

        wait(lambda: any(flat("binderyd exited (code 137): " + forwarder + "; reconnecting in") in flat(text)
                         for text in nvim.texts()), "Neovim's form to say the daemon was killed: " + forwarder)
        wait(lambda: any(("binderyd died (exit 137): %s\nReconnecting in" % forwarder) in text
                         for text in emacs.texts()), "Emacs's form to say the daemon was killed: " + forwarder)
        page.wait_until(lambda d: any("killed by signal 9" in text for text in d.execute_script("return window.said")),
                        LIMIT, "the page to say the daemon was killed")
        page.wait_until(lambda d: any("reconnecting in" in text for text in d.execute_script("return window.said")),
                        LIMIT, "the page to say it reconnects")
        step("all five said it")

        # Each reconnects by itself, to one new daemon, and shows the value the daemon kept.
        wait(lambda: [line for line in node.all() if line["event"] == "reconnected"], "Node to reconnect")
        # (Only the first face to reopen the key gets `restored: true`; the others attach to the live
        # session it restored, `reopened: true`. Which face is first is a race: the value is the proof.)
        wait(lambda: any("reconnected: %s (%s) reopened" % (TYPE, KEY) in line.get("message", "")
                         for line in nvim.all()), "Neovim to say it reconnected")
        wait(lambda: re.search(r'^Reconnected: key "%s" opened again, ' % KEY, emacs.shown(), re.M),
             "Emacs to say it reconnected")
        page.wait_live(timeout=LIMIT)  # by itself: no click
        try:
            wait(all_show("Ada"), "every face to show Ada again")
        except AssertionError as error:
            raise AssertionError("%s (%s)" % (error, showing())) from None
        wait(lambda: "!!" not in nvim.shown(), "Neovim's form to drop the daemon's death once back")
        assert form.refresh()["name"] == "Ada"  # session/state: the new daemon's own
        step("all five back")
        wait(lambda: daemons_on(socket) not in ([], [pid]) and len(daemons_on(socket)) == 1,
             "exactly one new daemon on " + socket)

        # A value written by another face reaches all five: every one is live on the new daemon.
        assert node_process.stdin is not None
        node_process.stdin.write(json.dumps({"set": ["name", "Grace"]}) + "\n")
        try:
            wait(all_show("Grace"), "every face to show Grace")
        except AssertionError as error:
            raise AssertionError("%s (%s)" % (error, showing())) from None
        step("Grace in all five")
        restored = {"python": form.restored,
                    "node": [line for line in node.all() if line["event"] == "reconnected"][0]["restored"] == [True],
                    "neovim": any("its values restored" in line.get("message", "") for line in nvim.all()),
                    "emacs": "its values restored" in emacs.shown()}
        print("five faces:", ", ".join(took), "; restored: true for", [face for face, it in restored.items() if it])
    finally:
        stop.touch()
        client.close()
        for cleanup in cleanups:
            cleanup()
        for process in started:
            if process is not emacs_process:
                process.terminate()
        for process in started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for reader in readers:
            reader.join(5)  # to the end of what its process wrote
        for process in started:
            for pipe in (process.stdin, process.stdout):
                if pipe is not None:
                    pipe.close()
