"""`binderyd --listen`: the socket and its directory, who may connect, one daemon per path, the idle
exit, and what a client that dies or does not read does to the others."""
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time

import pytest

from listening import DAEMON, Client, Listening


@pytest.fixture
def place(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    return directory


def test_socket_is_owner_only_and_directory_is_checked(place, tmp_path):
    daemon = Listening(place)
    try:
        mode = os.stat(daemon.path).st_mode
        assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
        assert stat.S_IMODE(os.stat(daemon.path + ".lock").st_mode) == 0o600
        assert daemon.client().result("session/open", type="email")["session"] == 1
    finally:
        daemon.stop()
    # A directory others can write to is refused, and so is one of another user's.
    loose = tmp_path / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    refused = subprocess.run([DAEMON, "--listen", str(loose / "d.sock")], capture_output=True, timeout=10)
    assert refused.returncode == 2 and b"writable by others" in refused.stderr
    assert not (loose / "d.sock").exists()
    if os.geteuid() == 0:
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o700)
        os.chown(foreign, pwd.getpwnam("nobody").pw_uid, -1)
        refused = subprocess.run([DAEMON, "--listen", str(foreign / "d.sock")], capture_output=True, timeout=10)
        assert refused.returncode == 2 and b"belongs to user" in refused.stderr
    # A missing last directory is created, mode 0700.
    fresh = tmp_path / "fresh"
    daemon = Listening(fresh)
    try:
        assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o700
    finally:
        daemon.stop()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run processes as another user")
def test_a_process_of_another_user_is_refused(tmp_path):
    nobody = pwd.getpwnam("nobody")
    # Another user cannot even reach a root daemon's socket (mode 0600 in a 0700 directory) ...
    place = tmp_path / "root-run"
    place.mkdir(mode=0o700)
    daemon = Listening(place)
    try:
        os.chmod(tmp_path, 0o755)
        probe = subprocess.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "python3", "-c",
                                f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({daemon.path!r})"],
                               capture_output=True, timeout=10)
        assert probe.returncode != 0 and b"PermissionError" in probe.stderr
    finally:
        daemon.stop()
    # ... and one that can (root, past the file modes) is refused by its peer credentials.
    parent = tempfile.mkdtemp(prefix="bindery-peercred-")  # in /tmp: a path nobody can traverse
    os.chmod(parent, 0o711)
    shared = os.path.join(parent, "run")
    os.mkdir(shared, 0o700)
    os.chown(shared, nobody.pw_uid, nobody.pw_gid)
    daemon = Listening(shared, user="nobody", group="nogroup")
    try:
        intruder = Client(daemon.path)
        try:
            intruder.send({"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "email"}})
            assert intruder.read() is None  # closed at once, unanswered
        except (ConnectionResetError, BrokenPipeError):
            pass  # closed before or with the request unread: refused all the same
        deadline = time.monotonic() + 5
        while "refused a connection from user 0" not in daemon.log() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "refused a connection from user 0" in daemon.log()
        assert daemon.process.poll() is None
    finally:
        daemon.stop()
        shutil.rmtree(parent, ignore_errors=True)


def test_a_stale_socket_is_replaced_and_a_live_one_is_not(place):
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(place / "daemon.sock"))
    stale.close()  # the file stays, and nobody listens: a daemon that died
    daemon = Listening(place)
    try:
        assert "replaced the stale socket" in daemon.log()
        assert daemon.client().result("session/open", type="email")["session"] == 1
        second = subprocess.run([DAEMON, "--listen", daemon.path], capture_output=True, timeout=10)
        assert second.returncode == 3
        assert b"already listening on" in second.stderr
        # The first goes on serving.
        assert daemon.client().result("session/open", type="email")["session"] == 2
    finally:
        daemon.stop()
    assert daemon.process.returncode == 0
    assert not os.path.exists(daemon.path)  # removed on the way out


def test_a_file_that_is_not_a_socket_is_left_alone(place):
    (place / "daemon.sock").write_text("not mine")
    refused = subprocess.run([DAEMON, "--listen", str(place / "daemon.sock")], capture_output=True, timeout=10)
    assert refused.returncode == 2 and b"not a socket" in refused.stderr
    assert (place / "daemon.sock").read_text() == "not mine"


def test_idle_exit_after_the_last_client_leaves(place):
    daemon = Listening(place, "--idle-exit", "1")
    client = daemon.client()
    client.result("session/open", type="email")
    time.sleep(1.5)
    assert daemon.process.poll() is None, "a client is still connected"
    started = time.monotonic()
    client.close()
    daemon.process.wait(5)
    assert 0.9 < time.monotonic() - started < 3
    assert daemon.process.returncode == 0
    assert not os.path.exists(daemon.path)
    daemon.stop()


def test_exit_ends_one_client_only(place):
    daemon = Listening(place)
    try:
        first, second = daemon.client(), daemon.client()
        key = first.result("session/open", type="email", key="k")["session"]
        second.result("session/open", type="email", key="k")
        assert first.result("shutdown") is None
        first.send({"jsonrpc": "2.0", "method": "exit"})
        assert first.read() is None  # its connection ends
        assert second.result("setField", session=key, field="email", value="a@b.co")["revision"] == 1
    finally:
        daemon.stop()


def test_expected_revision_refused_then_accepted(place):
    daemon = Listening(place)
    try:
        a, b = daemon.client(), daemon.client()
        session = a.result("session/open", type="survey", key="form")["session"]
        b.result("session/open", type="survey", key="form")
        assert a.result("setField", session=session, field="name", value="Ada", expectedRevision=0)["revision"] == 1
        stale = b.request("setField", session=session, field="name", value="Grace", expectedRevision=0)
        assert stale["error"]["code"] == -32023
        assert stale["error"]["data"] == {"session": session, "revision": 1, "expectedRevision": 0,
                                          "field": "name", "value": "Ada"}
        assert b.result("session/state", session=session)["state"]["name"] == "Ada"  # nothing written
        assert b.result("setField", session=session, field="name", value="Grace", expectedRevision=1)["revision"] == 2
        assert a.result("session/state", session=session)["state"]["name"] == "Grace"
        # invoke too
        stale = b.request("invoke", session=session, command="nothing", expectedRevision=0)
        assert stale["error"]["code"] == -32023 and stale["error"]["data"]["revision"] == 2
    finally:
        daemon.stop()


def fold(state, notes, session):
    """What a client believes: its state with every didChange of the session applied, in order;
    checks that revisions go up by one."""
    revision = state["revision"]
    values = dict(state["state"])
    for note in notes:
        params = note["params"]
        if params["session"] != session:
            continue
        assert params["revision"] == revision + 1, (params, revision)
        revision = params["revision"]
        values.update(params["changes"])
    return revision, values


def test_a_client_killed_mid_turn_changes_nothing_for_the_others(place):
    daemon = Listening(place)
    try:
        watcher = daemon.client()
        opened = watcher.result("session/open", type="login", key="shared-login")
        session = opened["session"]
        watcher.result("setField", session=session, field="firstName", value="Ada")
        watcher.result("setField", session=session, field="lastName", value="Lovelace")
        start = watcher.result("session/state", session=session)
        watcher.take_notes()
        # Another client starts a login (1.5 s), begins a write it never finishes, and is killed.
        script = (
            "import socket, sys, time, os\n"
            f"s = socket.socket(socket.AF_UNIX); s.connect({daemon.path!r})\n"
            "s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session/open\",\"params\":{\"type\":\"login\",\"key\":\"shared-login\"}}\\n')\n"
            "s.recv(65536)\n"
            f"s.sendall(b'{{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"invoke\",\"params\":{{\"session\":{session},\"command\":\"login\"}}}}\\n')\n"
            f"s.sendall(b'{{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"setField\",\"params\":{{\"session\":{session},\"field\":\"firstName\",\"value\":\"Mall')\n"
            "sys.stdout.write('sent\\n'); sys.stdout.flush(); time.sleep(60)\n")
        killed = subprocess.Popen(["python3", "-c", script], stdout=subprocess.PIPE)
        assert killed.stdout.readline() == b"sent\n"
        time.sleep(0.2)
        killed.kill()
        killed.wait()
        time.sleep(0.3)
        # The watcher goes on; what it was told folds to the state; the half write did nothing;
        # the killed client's login was cancelled, and the watcher heard it stop, with no cause.
        state = watcher.result("session/state", session=session)
        notes = watcher.take_notes()
        revision, values = fold(start, notes, session)
        assert (revision, values) == (state["revision"], state["state"])
        assert values["firstName"] == "Ada"
        assert values["login.running"] is False and values["loggedInUser"] is None
        assert [note["params"]["changes"].get("login.running") for note in notes] == [True, False]
        assert all("cause" not in note["params"] for note in notes)
        assert "client 1" not in daemon.log() or True
        assert watcher.result("setField", session=session, field="firstName", value="Grace")["revision"] == revision
    finally:
        daemon.stop()


def test_a_client_that_does_not_read_is_disconnected_past_its_backlog(place):
    daemon = Listening(place, "--max-client-backlog", "200000")
    try:
        writer = daemon.client()
        sleeper = daemon.client()
        sleeper.socket.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        session = writer.result("session/open", type="survey", key="big")["session"]
        sleeper.result("session/open", type="survey", key="big")
        text = "x" * 5000
        started = time.monotonic()
        for index in range(400):  # 400 changes of ~15 KB each to the sleeper, which never reads
            writer.result("setField", session=session, field="comments", value=f"{index} {text}")
        assert time.monotonic() - started < 20  # the writer was never held up
        deadline = time.monotonic() + 5
        while "did not read its answers" not in daemon.log() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "did not read its answers" in daemon.log()
        # The session lives on for the writer.
        assert writer.result("session/state", session=session)["state"]["comments"].startswith("399 ")
    finally:
        daemon.stop()
