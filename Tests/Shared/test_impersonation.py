"""Every client of a shared daemon checks, before its first byte, that the socket's directory and
the socket are the user's alone and that the process listening is the user's (protocol.md, "Shared
daemon"). User B (here `nobody`) plants a directory at the path user A (root, this test) will use
and relays to a daemon of B's own, reading every byte; A's forwarder, Python client and Node
client must refuse, naming the path, and B must read nothing."""
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from listening import DAEMON, Listening

ROOT = Path(__file__).resolve().parents[2]
OPEN = b'{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"login","key":"k"}}\n'
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run processes as another user")


class Trap:
    """B's daemon in B's directory, and B's relay listening at `B_dir/daemon.sock` (mode 0777 in a
    directory of B's that A can traverse: a planted `/tmp/bindery-<A's uid>/`)."""

    def __init__(self):
        nobody = pwd.getpwnam("nobody")
        self.parent = tempfile.mkdtemp(prefix="bindery-trap-")
        os.chmod(self.parent, 0o711)
        own = os.path.join(self.parent, "b-daemon")
        os.mkdir(own, 0o700)
        os.chown(own, nobody.pw_uid, nobody.pw_gid)
        self.daemon = Listening(own, user="nobody", group="nogroup")
        self.directory = os.path.join(self.parent, "planted")
        os.mkdir(self.directory, 0o755)
        os.chown(self.directory, nobody.pw_uid, nobody.pw_gid)
        self.path = os.path.join(self.directory, "daemon.sock")
        self.copy = os.path.join(self.directory, "copy")
        relay = (Path(__file__).parent / "impersonation.py").read_text()
        self.relay = subprocess.Popen(AS_NOBODY + [sys.executable, "-c", relay, self.path, self.daemon.path, self.copy],
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert self.relay.stdout.readline() == b"ready\n", self.relay.stderr.read()

    def seen(self):
        return Path(self.copy).read_bytes() if os.path.exists(self.copy) else b""

    def stop(self):
        self.relay.kill()
        self.relay.wait()
        self.daemon.stop()
        shutil.rmtree(self.parent, ignore_errors=True)


@pytest.fixture
def trap():
    planted = Trap()
    yield planted
    planted.stop()


def python_client(path):
    code = ("import sys; sys.path.insert(0, %r)\n"
            "from bindery import Client, UntrustedSocket\n"
            "try:\n"
            "    c = Client(socket=%r, start=False); c.open('login', key='k'); print('CONNECTED')\n"
            "except UntrustedSocket as e:\n"
            "    print('REFUSED', e); sys.exit(3)\n") % (str(ROOT / "clients" / "python"), path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)


def node_client(path):
    code = ("import { Client } from %s;\n"
            "try { const c = await Client.connect({ socket: %s, start: false });"
            " await c.open('login', { key: 'k' }); console.log('CONNECTED'); await c.close(); }\n"
            "catch (e) { if (e.name !== 'UntrustedSocketError') throw e; console.log('REFUSED ' + e.message); process.exit(3); }\n"
            ) % (json.dumps(str(ROOT / "clients" / "node" / "index.js")), json.dumps(path))
    return subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=30)


def test_a_directory_planted_by_another_user_is_refused_by_every_client(trap):
    forwarder = subprocess.run([DAEMON, "--remote", trap.path], input=OPEN, capture_output=True, timeout=30)
    assert forwarder.returncode == 1, (forwarder.stdout, forwarder.stderr)
    assert forwarder.stdout == b""
    assert (f"refusing to talk to {trap.path}: {trap.directory} belongs to user 65534, not to this user (0)"
            .encode() in forwarder.stderr), forwarder.stderr
    python = python_client(trap.path)
    assert python.returncode == 3, python.stdout + python.stderr
    assert f"REFUSED refusing to talk to {trap.path}: {trap.directory} belongs to user 65534" in python.stdout
    node = node_client(trap.path)
    assert node.returncode == 3, node.stdout + node.stderr
    assert f"REFUSED refusing to talk to {trap.path}: {trap.directory} belongs to user 65534" in node.stdout
    assert trap.seen() == b""  # B read nothing


def test_another_users_listener_in_the_users_own_directory_is_refused_by_its_peer_credentials(trap, tmp_path):
    # Past the file checks: B's listening socket moved into a directory of A's and given to A (what
    # only root could do) — the peer's user id is the last check (SO_PEERCRED).
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    path = str(mine / "daemon.sock")
    os.rename(trap.path, path)
    os.chown(path, 0, 0)
    forwarder = subprocess.run([DAEMON, "--remote", path], input=OPEN, capture_output=True, timeout=30)
    assert forwarder.returncode == 1, (forwarder.stdout, forwarder.stderr)
    assert (f"refusing to talk to {path}: the process listening there runs as user 65534, not as this user (0)"
            .encode() in forwarder.stderr), forwarder.stderr
    python = python_client(path)
    assert python.returncode == 3, python.stdout + python.stderr
    assert f"REFUSED refusing to talk to {path}: the process listening there runs as user 65534" in python.stdout
    assert trap.seen() == b""
    # Node cannot read peer credentials (protocol.md says so): its file checks pass here.


def test_a_socket_of_another_user_in_the_users_directory_is_refused(trap, tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    path = str(mine / "daemon.sock")
    os.rename(trap.path, path)  # still owned by B, who bound it
    forwarder = subprocess.run([DAEMON, "--remote", path], input=OPEN, capture_output=True, timeout=30)
    assert forwarder.returncode == 1
    assert f"refusing to talk to {path}: the socket belongs to user 65534, not to this user (0)".encode() in forwarder.stderr
    for run in (python_client, node_client):
        done = run(path)
        assert done.returncode == 3, done.stdout + done.stderr
        assert f"REFUSED refusing to talk to {path}: the socket belongs to user 65534" in done.stdout
    assert trap.seen() == b""


def test_a_directory_writable_by_others_is_refused(tmp_path):
    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    path = str(loose / "daemon.sock")
    forwarder = subprocess.run([DAEMON, "--remote", path], input=OPEN, capture_output=True, timeout=30)
    assert forwarder.returncode == 1
    assert f"refusing to talk to {path}: {loose} is writable by others (mode 777)".encode() in forwarder.stderr
    for run in (python_client, node_client):
        done = run(path)
        assert done.returncode == 3, done.stdout + done.stderr
        assert f"REFUSED refusing to talk to {path}: {loose} is writable by others (mode 777)" in done.stdout
