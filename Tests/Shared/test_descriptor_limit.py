"""`binderyd --listen` at its descriptor limit: it stops accepting (no busy loop in accept) until a
client leaves, and the clients waiting meanwhile are served then (RELIABILITY.md)."""
import os
import socket
import time

from listening import Client, Listening

TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def test_at_its_descriptor_limit_the_daemon_neither_spins_nor_drops_waiting_clients(tmp_path):
    place = tmp_path / "run"
    place.mkdir(mode=0o700)
    # 40 descriptors: 60 connections (other processes of the user's) take the rest.
    daemon = Listening(place, prefix=["prlimit", "--nofile=40:40", "--"])
    held = []
    try:
        for _ in range(60):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(daemon.path)
            held.append(connection)
        deadline = time.monotonic() + 10
        while "out of descriptors" not in daemon.log() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "out of descriptors" in daemon.log(), daemon.log()
        before = cpu_seconds(daemon.process.pid)
        time.sleep(2.0)
        used = cpu_seconds(daemon.process.pid) - before
        assert used < 0.3, "the daemon used %.2f s of CPU in 2 s at its descriptor limit" % used
        # A client that connects now waits in the backlog, behind the connections not yet
        # accepted; when most of the others leave, the daemon accepts again and answers it.
        waiting = Client(daemon.path)
        waiting.send({"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "email"}})
        for connection in held[:50]:
            connection.close()
        answer = waiting.read()
        while "id" not in answer:
            answer = waiting.read()
        assert answer["result"]["revision"] == 0, answer
        waiting.close()
        assert daemon.process.poll() is None
    finally:
        for connection in held:
            connection.close()
        daemon.stop()
