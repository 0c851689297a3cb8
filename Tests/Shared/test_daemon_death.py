"""A shared daemon that ends under its clients: one exiting (--idle-exit) just as a forwarder
connects is not an empty success, and one killed is reported as what it was, with its log."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from listening import DAEMON
from test_remote import OPEN, daemons_on, stop_daemons

ROOT = Path(__file__).resolve().parents[2]

# A stand-in for a daemon at the moment its idle exit closes its socket: it listens, waits until
# a connection is pending (never accepting it), and exits.
EXITING = """
import os, select, socket, sys
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(8)
print("ready", flush=True)
select.select([listener], [], [])
os._exit(0)
"""


@pytest.fixture
def place(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    yield directory
    stop_daemons(directory / "daemon.sock")


def test_a_forwarder_reaching_a_daemon_as_it_exits_connects_again(place):
    path = place / "daemon.sock"
    exiting = subprocess.Popen([sys.executable, "-c", EXITING, str(path)], stdout=subprocess.PIPE)
    assert exiting.stdout.readline() == b"ready\n"
    done = subprocess.run([DAEMON, "--remote", str(path)], input=OPEN, capture_output=True, timeout=30)
    exiting.wait(5)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["session"] == 1  # answered by the daemon it started
    assert b"was exiting as this client connected; connecting again" in done.stderr


def wait_for_line(stream):
    line = stream.readline()
    assert line, "the stream ended"
    return json.loads(line)


def test_a_killed_daemon_is_reported_by_the_forwarder_and_the_python_client(place):
    path = place / "daemon.sock"
    forwarder = subprocess.Popen([DAEMON, "--remote", str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
    forwarder.stdin.write(OPEN)
    forwarder.stdin.flush()
    assert wait_for_line(forwarder.stdout)["result"]["session"] == 1
    sys.path.insert(0, str(ROOT / "clients" / "python"))
    from bindery import Client, DaemonExited
    client = Client(socket=str(path), start=False)
    # Unkeyed: a call on a keyed session made while the client reconnects waits for the daemon to
    # come back (clients/python/tests/test_reconnect_calls.py); this one's raises how it died.
    form = client.open("email")
    [pid] = daemons_on(path)
    os.kill(pid, signal.SIGKILL)
    # The forwarder: the exit status of a process killed by signal 9, and why, with the log.
    assert forwarder.wait(10) == 128 + 9
    said = forwarder.stderr.read().decode()
    assert (f"binderyd --remote: error: the daemon on {path} (pid {pid}) was killed by signal 9 while this "
            f"client was connected; its log: {path}.log") in said, said
    assert (place / "daemon.sock.exit").read_text() == f"pid {pid}: killed by signal 9\n"
    assert f"the daemon (pid {pid}) was killed by signal 9" in (place / "daemon.sock.log").read_text()
    # The Python client: DaemonExited, killed by signal 9, the daemon's path, pid and log.
    with pytest.raises(DaemonExited) as raised:
        form.set("email", "a@b.co")
    assert raised.value.returncode == -9
    text = str(raised.value)
    assert text.startswith(f"binderyd was killed by signal 9 (the shared daemon on {path} (pid {pid}); "
                           f"its log: {path}.log)"), text
    client.close()


def fnv1a(text):
    value = 0xCBF29CE484222325
    for byte in text.encode():
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % value


def test_the_auto_daemon_keeps_keyed_forms_across_its_crash(tmp_path):
    runtime = tmp_path / "xdg"
    runtime.mkdir(mode=0o700)
    env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime), XDG_STATE_HOME=str(tmp_path / "state"))
    path = runtime / "bindery" / "daemon.sock"
    # In the user's state directory (it outlives a logout), a folder per socket path.
    sessions = tmp_path / "state" / "bindery" / "sessions" / fnv1a(str(path))
    try:
        forwarder = subprocess.Popen([DAEMON, "--remote", "auto"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env)
        for line in (b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"survey","key":"form-1"}}\n',
                     b'{"jsonrpc":"2.0","id":2,"method":"session/open","params":{"type":"email"}}\n',
                     b'{"jsonrpc":"2.0","id":3,"method":"setField","params":{"session":1,"field":"name","value":"Ada"}}\n'):
            forwarder.stdin.write(line)
        forwarder.stdin.flush()
        while wait_for_line(forwarder.stdout).get("id") != 3:
            pass
        deadline = time.monotonic() + 10  # written 250 ms after the change settles
        while not any("Ada" in f.read_text() for f in sessions.glob("session-*.json")) and time.monotonic() < deadline:
            time.sleep(0.02)
        [pid] = daemons_on(path)
        os.kill(pid, signal.SIGKILL)
        assert forwarder.wait(10) == 137
        # A new forwarder starts a new daemon: the keyed form comes back, the unkeyed one is gone.
        again = subprocess.run([DAEMON, "--remote", "auto"], env=env, capture_output=True, timeout=30, input=(
            b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"survey","key":"form-1","observe":["name"]}}\n'
            b'{"jsonrpc":"2.0","id":2,"method":"session/state","params":{"session":2}}\n'))
        [opened, state] = [json.loads(line) for line in again.stdout.splitlines()]
        assert opened["result"]["restored"] is True and opened["result"]["state"] == {"name": "Ada"}, opened
        assert state["error"]["code"] == -32011
        assert (runtime / "bindery" / "daemon.sock.args").read_text() == f"--idle-exit\n60\n--state\n{sessions}\n"
        assert oct(sessions.parent.stat().st_mode & 0o777) == "0o700"
    finally:
        stop_daemons(path)


# How the death is reported, so without reconnecting (which clients/node/test/reconnect.test.js tests):
# a reconnecting client's call on a keyed session waits for the daemon to come back.
NODE_CLIENT = """
import { Client } from %(index)s;
const client = await Client.connect({ socket: %(path)s, start: false, reconnect: false });
const form = await client.open('email', { key: 'k' });
console.log('OPEN');
process.stdin.once('data', async () => {
  try { await form.set('email', 'a@b.co'); console.log('NO ERROR'); }
  catch (error) { console.log(JSON.stringify({ name: error.name, message: error.message, signal: error.signal })); }
  process.exit(0);
});
"""


def test_a_killed_daemon_is_reported_by_the_node_client(place):
    path = place / "daemon.sock"
    starter = subprocess.run([DAEMON, "--remote", str(path)], input=OPEN, capture_output=True, timeout=30)
    assert starter.returncode == 0, starter.stderr
    code = NODE_CLIENT % {"index": json.dumps(str(ROOT / "clients" / "node" / "index.js")), "path": json.dumps(str(path))}
    node = subprocess.Popen(["node", "--input-type=module", "-e", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert node.stdout.readline() == b"OPEN\n"
    [pid] = daemons_on(path)
    os.kill(pid, signal.SIGKILL)
    out, _ = node.communicate(b"go\n", timeout=20)
    said = json.loads(out)
    assert said["name"] == "DaemonExitedError" and said["signal"] == "SIGKILL", said
    assert said["message"].startswith(f"binderyd was killed by SIGKILL (the shared daemon on {path} (pid {pid}); "
                                      f"its log: {path}.log)"), said
