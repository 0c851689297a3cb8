"""`binderyd --remote PATH|auto`: a forwarder that relays stdio to a shared daemon, starting one when
none answers."""
import json
import os
import subprocess
import time
from pathlib import Path

import pytest

from listening import DAEMON, Client

OPEN = b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email","key":"k"}}\n'


def forward(path, *arguments, input=b"", timeout=20, env=None):
    return subprocess.run([DAEMON, "--remote", str(path), *arguments], input=input, capture_output=True,
                          timeout=timeout, env=env)


def daemons_on(path):
    out = subprocess.run(["pgrep", "-f", "--", f"--listen {path}"], capture_output=True, text=True).stdout
    return [int(pid) for pid in out.split()]


def stop_daemons(path):
    for pid in daemons_on(path):
        os.kill(pid, 15)
    deadline = time.monotonic() + 5
    while daemons_on(path) and time.monotonic() < deadline:
        time.sleep(0.02)


@pytest.fixture
def place(tmp_path):
    directory = tmp_path / "run"
    yield directory
    stop_daemons(directory / "daemon.sock")


def test_relays_byte_for_byte_and_starts_a_daemon(place):
    path = place / "daemon.sock"
    # LSP framing through the forwarder: the bytes the daemon writes, unchanged.
    body = b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email"}}'
    framed = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    first = forward(path, "--idle-exit", "30", input=framed)
    assert first.returncode == 0, first.stderr
    expected = (b'{"jsonrpc":"2.0","id":1,"result":{"session":1,"revision":0,"state":'
                b'{"email":"","isValid":false,"validationMessage":"Email is invalid"}}}')
    assert first.stdout == b"Content-Length: %d\r\n\r\n%s" % (len(expected), expected)
    assert len(daemons_on(path)) == 1
    assert "listening on" in (place / "daemon.sock.log").read_text()
    assert (place / "daemon.sock.args").read_text() == "--idle-exit\n30\n"
    # The daemon outlives the forwarder: the next one finds it (the session ids go on).
    second = forward(path, input=OPEN)
    assert json.loads(second.stdout)["result"]["session"] == 2
    assert second.stderr == b""  # --idle-exit aside, the same options: no warning


def test_exit_and_end_of_input(place):
    path = place / "daemon.sock"
    lines = [OPEN,
             b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}\n',
             b'{"jsonrpc":"2.0","method":"exit"}\n']
    done = forward(path, input=b"".join(lines))
    assert done.returncode == 0
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()] == [1, 2]
    # The daemon goes on after that client's exit.
    assert len(daemons_on(path)) == 1


def test_two_forwarders_at_once_share_one_daemon(place):
    path = place / "daemon.sock"
    processes = [subprocess.Popen([DAEMON, "--remote", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE) for _ in range(4)]
    outputs = [process.communicate(OPEN, timeout=20) for process in processes]
    sessions = [json.loads(out)["result"]["session"] for out, _ in outputs]
    # One daemon: its session ids count on across the four (each client's keyed session closed
    # when it left, so each opened one anew).
    assert sorted(sessions) == [1, 2, 3, 4]
    assert all(process.returncode == 0 for process in processes)
    # A forwarder that found no daemon started one; the daemons that lost the lock exit (code 3), but
    # in their own time: one that a busy machine has not yet run that far is still there a moment.
    deadline = time.monotonic() + 10
    while len(daemons_on(path)) > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(daemons_on(path)) == 1


def test_options_pass_through_and_idle_exit(place):
    path = place / "daemon.sock"
    advance = (b'{"jsonrpc":"2.0","id":1,"method":"clock/advance","params":{"ms":5}}\n')
    done = forward(path, "--deterministic", "--idle-exit", "1", input=advance)
    assert json.loads(done.stdout) == {"jsonrpc": "2.0", "id": 1, "result": {"now": 5}}
    # A forwarder with other options connects to the daemon as it is, and says so.
    other = forward(path, input=advance)
    assert json.loads(other.stdout)["result"]["now"] == 10  # the daemon's one virtual clock
    assert b"runs with options [--deterministic]" in other.stderr
    # Idle for a second after its last client: gone, socket removed.
    deadline = time.monotonic() + 5
    while daemons_on(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not daemons_on(path)
    assert not path.exists()


def test_auto_is_under_xdg_runtime_dir(tmp_path):
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
    try:
        done = forward("auto", input=OPEN, env=env)
        assert done.returncode == 0, done.stderr
        socket_path = runtime / "bindery" / "daemon.sock"
        assert socket_path.exists()
        assert oct(os.stat(runtime / "bindery").st_mode & 0o777) == "0o700"
        client = Client(str(socket_path))
        # The same daemon (its ids go on); the forwarder's client left, and its keyed session with it.
        assert client.result("session/open", type="email", key="k")["session"] == 2
        client.close()
    finally:
        stop_daemons(runtime / "bindery" / "daemon.sock")
