"""bindery-web under descriptor pressure: any local process may open connections without a token.
Held half-requests are bounded in number and time, a page's stream keeps working beside thousands
of them, and at the descriptor limit the bridge neither spins nor stops serving (RELIABILITY.md)."""
from __future__ import annotations

import http.client
import importlib.machinery
import importlib.util
import json
import os
import resource
import socket
import time
from typing import Any, Callable, List

from conftest import BRIDGE, Bridge, wait_for
from test_security import authorized, read_events, send

TICKS = os.sysconf("SC_CLK_TCK")


def load_bridge_module() -> Any:
    loader = importlib.machinery.SourceFileLoader("bindery_web", BRIDGE)
    spec = importlib.util.spec_from_loader("bindery_web", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def cpu_seconds(pid: int) -> float:
    fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def half_requests(bridge: Bridge, count: int) -> List[socket.socket]:
    """`count` connections that send a request line and one header, and never the blank line."""
    held = []
    for _ in range(count):
        connection = socket.create_connection(("127.0.0.1", bridge.port))
        connection.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % bridge.port)
        held.append(connection)
    return held


def closed_by_bridge(connections: List[socket.socket]) -> int:
    ended = 0
    for connection in connections:
        connection.setblocking(False)
        try:
            if connection.recv(1) == b"":
                ended += 1
        except BlockingIOError:
            pass
        except OSError:
            ended += 1
    return ended


def test_the_stream_peer_check_works_above_descriptor_1023() -> None:
    """select() fails for a descriptor above 1023: the stream's peer check must not use it."""
    module = load_bridge_module()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 2048:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(2048, hard), hard))
    ours, page = socket.socketpair()
    high = socket.socket(fileno=os.dup2(ours.fileno(), 1500))
    ours.close()

    class Stream:
        connection = high

    try:
        assert module.Handler._peer_closed(Stream()) is False
        page.close()
        assert module.Handler._peer_closed(Stream()) is True
    finally:
        high.close()


def test_a_stream_lives_beside_thousands_of_held_half_requests(start_bridge: Callable[..., Bridge]) -> None:
    bridge = start_bridge()
    held = half_requests(bridge, 1100)
    try:
        # Past 256 waiting heads the oldest are dropped: the bridge keeps few of them.
        wait_for(lambda: closed_by_bridge(held) >= 1100 - 256, 20, "the oldest waiting heads dropped")
        connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
        connection.request("GET", "/events", headers=authorized(bridge))
        response = connection.getresponse()
        [(event, data)] = read_events(response, 1)
        assert event == "hello"
        conn = json.loads(data)["conn"]
        time.sleep(2.5)  # the stream's peer check runs each idle second; it ended the stream before
        message = {"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "email"}}
        status, _, _ = send(bridge, "/rpc?conn=" + conn, "POST", {"Content-Type": "application/json", **authorized(bridge)},
                            json.dumps(message).encode())
        assert status == 204
        [(_, answer)] = read_events(response, 1)
        assert json.loads(answer)["result"]["session"] == 1
        connection.close()
    finally:
        for connection in held:
            connection.close()


def test_a_head_that_trickles_is_cut_at_the_header_timeout(start_bridge: Callable[..., Bridge]) -> None:
    bridge = start_bridge(arguments=["--header-timeout", "1"])
    slow = socket.create_connection(("127.0.0.1", bridge.port))
    slow.settimeout(0.25)
    ended = False
    sent = 0
    started = time.monotonic()
    while not ended and time.monotonic() - started < 20:
        try:
            slow.sendall(b"GET / HTTP/1.1\r\nX-Slow-%d: 1\r\n" % sent)  # a header every 0.25 s, never the end
            sent += 1
            ended = slow.recv(1) == b""
        except socket.timeout:
            continue
        except OSError:
            ended = True
    slow.close()
    assert ended, "a head trickling for 20 s was never cut"
    assert send(bridge, "/ping", headers=authorized(bridge))[0] == 204


def test_at_the_descriptor_limit_the_bridge_neither_spins_nor_stops_serving(start_bridge: Callable[..., Bridge]) -> None:
    # 100 descriptors: 300 held half-requests take them all.
    bridge = start_bridge(prefix=["prlimit", "--nofile=100:100", "--"])
    held = half_requests(bridge, 300)
    try:
        wait_for(lambda: closed_by_bridge(held) >= 200, 20, "the bridge to work through the connections at its limit")
        assert any("out of descriptors" in line for line in bridge.stderr), bridge.stderr[-5:]
        # Still at the limit (the rest of the heads held), and idle: it does not spin in accept.
        before = cpu_seconds(bridge.process.pid)
        time.sleep(2.0)
        used = cpu_seconds(bridge.process.pid) - before
        assert used < 0.3, "the bridge used %.2f s of CPU in 2 s at its descriptor limit" % used
        # A new connection is still served (the oldest waiting head gives way).
        assert send(bridge, "/ping", headers=authorized(bridge))[0] == 204
    finally:
        for connection in held:
            connection.close()


def test_event_streams_are_capped(start_bridge: Callable[..., Bridge]) -> None:
    bridge = start_bridge(daemon="cat")  # a stand-in daemon: each stream costs a process
    streams = []
    try:
        for _ in range(64):
            connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
            connection.request("GET", "/events", headers=authorized(bridge))
            response = connection.getresponse()
            assert read_events(response, 1)[0][0] == "hello"
            streams.append(connection)
        status, _, body = send(bridge, "/events", headers=authorized(bridge))
        assert status == 503 and b"At most 64 event streams" in body
    finally:
        for connection in streams:
            connection.close()
