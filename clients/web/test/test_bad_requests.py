"""bindery-web's answers to malformed or hostile requests, each with a clear status and the same
security headers as every response; an event stream nobody reads is dropped, not held without
bound; the token never reaches the log, however it is spelled."""
from __future__ import annotations

import http.client
import json
import socket
from typing import Any, Callable, Dict

from conftest import Bridge, wait_for
from test_security import authorized, read_events, send

JSON = {"Content-Type": "application/json"}


def open_stream(bridge: Bridge) -> Any:
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
    connection.request("GET", "/events", headers=authorized(bridge))
    response = connection.getresponse()
    [(event, data)] = read_events(response, 1)
    assert event == "hello"
    return connection, response, json.loads(data)["conn"]


def raw(bridge: Bridge, request: bytes) -> bytes:
    """The whole answer to bytes sent as they are."""
    with socket.create_connection(("127.0.0.1", bridge.port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                return answer
            answer += chunk


def test_a_body_nested_100000_deep_is_a_clear_400(bridge: Bridge) -> None:
    connection, response, conn = open_stream(bridge)
    try:
        body = b"[" * 100000 + b"]" * 100000
        status, _, text = send(bridge, "/rpc?conn=" + conn, "POST", {**JSON, **authorized(bridge)}, body)
        assert status == 400, (status, text)
        assert text == b"Not JSON the daemon takes: nested too deeply (it takes at most 512 levels)\n"
    finally:
        connection.close()


def test_two_different_content_lengths_are_refused(bridge: Bridge) -> None:
    body = b'{"jsonrpc":"2.0","method":"exit"}'
    request = (b"POST /rpc?conn=x HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Bindery-Token: %s\r\n"
               b"Content-Type: application/json\r\nContent-Length: %d\r\nContent-Length: 5\r\n\r\n%s"
               % (bridge.port, bridge.token.encode(), len(body), body))
    answer = raw(bridge, request)
    assert answer.startswith(b"HTTP/1.1 400 "), answer
    assert b"Two different Content-Length headers: 33 and 5" in answer


def test_the_librarys_own_error_pages_carry_the_security_headers(bridge: Bridge) -> None:
    host = b"Host: 127.0.0.1:%d\r\n" % bridge.port
    cases = {
        b"414": b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n" + host + b"\r\n",
        b"431": b"GET / HTTP/1.1\r\n" + host + b"".join(b"X-%d: 1\r\n" % n for n in range(120)) + b"\r\n",
        b"501": b"BREW / HTTP/1.1\r\n" + host + b"\r\n",
        b"400": b"GET / HTTP/9\r\n" + host + b"\r\n",
    }
    for status, request in cases.items():
        answer = raw(bridge, request)
        head = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        assert head.startswith("HTTP/1.1 %s" % status.decode()) or head.startswith("HTTP/1.0 %s" % status.decode()), head
        for name in ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy",
                     "Cross-Origin-Resource-Policy", "Cache-Control"):
            assert "\r\n%s: " % name in head, (status, name, head)


def test_an_event_stream_nobody_reads_is_dropped_not_held(start_bridge: Callable[..., Bridge]) -> None:
    bridge = start_bridge()
    # A stream whose page never reads, with a small receive buffer.
    page = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    page.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    page.connect(("127.0.0.1", bridge.port))
    page.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nX-Bindery-Token: %s\r\n\r\n"
                 % (bridge.port, bridge.token.encode()))
    head = b""
    while b"event: hello" not in head:
        head += page.recv(1)
    while not head.endswith(b"\n\n"):
        head += page.recv(1)
    conn = json.loads(head.split(b"event: hello\ndata: ", 1)[1].split(b"\n", 1)[0])["conn"]
    # Each session/state answer carries a 1 MB value: 40 MB owed to a page that reads nothing.
    big = "a" * 1_000_000
    messages = [{"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "email"}},
                {"jsonrpc": "2.0", "id": 2, "method": "setField", "params": {"session": 1, "field": "email", "value": big}}]
    messages += [{"jsonrpc": "2.0", "id": 3 + n, "method": "session/state", "params": {"session": 1}} for n in range(40)]
    for message in messages:
        status, _, _ = send(bridge, "/rpc?conn=" + conn, "POST", {**JSON, **authorized(bridge)}, json.dumps(message).encode())
        if status != 204:
            break
    wait_for(lambda: any("connection %s: dropped: its page did not read its stream" % conn[:6] in line
                         for line in bridge.stderr), 20, "the unread stream to be dropped")
    wait_for(lambda: any("connection %s: ended" % conn[:6] in line for line in bridge.stderr), 20, "its daemon connection ended")
    page.close()


def test_a_percent_encoded_token_is_masked_in_the_log(bridge: Bridge) -> None:
    mark = len(bridge.stderr)
    encoded = "".join("%%%02X" % ord(c) for c in bridge.token)
    assert send(bridge, "/ping?token=" + encoded)[0] == 204
    assert send(bridge, "/ping?token=" + bridge.token[:5] + encoded[15:])[0] == 204
    wait_for(lambda: len([line for line in bridge.log_since(mark) if "/ping" in line]) >= 2, 5, "the requests logged")
    logged = "\n".join(bridge.log_since(mark))
    assert encoded not in logged and bridge.token not in logged and encoded[15:] not in logged, logged
    assert "token=<token>" in logged
