"""bindery-web's guard, request by request (http.client, every header chosen) and from a real page
of another origin in the browser: no token, a foreign Host (DNS rebinding), a cross-origin request
— each refused; nothing listens beyond 127.0.0.1; no client string becomes a path."""
from __future__ import annotations

import http.client
import http.server
import json
import re
import socket
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

import pytest

from conftest import Bridge, Page, wait_for


def send(bridge: Bridge, path: str, method: str = "GET", headers: Optional[Dict[str, Optional[str]]] = None,
         body: Optional[bytes] = None, read: bool = True) -> Tuple[int, Dict[str, str], bytes]:
    """One request with exactly these headers (Host defaults to 127.0.0.1:PORT; None leaves one out)."""
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=5)
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    given: Dict[str, Optional[str]] = {"Host": "127.0.0.1:%d" % bridge.port}
    given.update(headers or {})
    for name, value in given.items():
        if value is not None:
            connection.putheader(name, value)
    if body is not None:
        connection.putheader("Content-Length", str(len(body)))
    connection.endheaders(body)
    response = connection.getresponse()
    data = response.read() if read else b""
    result = (response.status, {name.lower(): value for name, value in response.getheaders()}, data)
    connection.close()
    return result


def authorized(bridge: Bridge) -> Dict[str, Optional[str]]:
    return {"X-Bindery-Token": bridge.token}


PAGE_FILES = ["/app.js", "/model.js", "/app.css"]
DAEMON_PATHS = ["/ping", "/events"]


def test_the_url_is_the_first_line_with_a_fresh_token(bridge: Bridge, start_bridge: Any) -> None:
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43}", bridge.url)
    assert start_bridge().token != bridge.token


@pytest.mark.parametrize("path", DAEMON_PATHS)
def test_requests_without_the_token_are_refused(bridge: Bridge, path: str) -> None:
    status, _, body = send(bridge, path)
    assert status == 403 and b"no token" in body
    # One character changed (a token may begin with "x" itself: 1 in 64), empty, one added.
    changed = ("y" if bridge.token[0] == "x" else "x") + bridge.token[1:]
    for wrong in ({"X-Bindery-Token": changed}, {"X-Bindery-Token": ""},
                  {"X-Bindery-Token": bridge.token + "x"}):
        status, _, body = send(bridge, path, headers=wrong)
        assert status == 403 and b"wrong token" in body, (wrong, body)
    status, _, _ = send(bridge, path + "?token=" + bridge.token[:-1])
    assert status == 403
    # A cookie is never a credential (a browser sends one to every port of 127.0.0.1).
    status, _, body = send(bridge, path, headers={"Cookie": "bindery-web-%d=%s" % (bridge.port, bridge.token)})
    assert status == 403 and b"no token" in body


def test_the_page_itself_needs_the_token(bridge: Bridge) -> None:
    """A request for the page without the token is refused, as every request without it is."""
    status, headers, body = send(bridge, "/")
    assert status == 403 and b"no token" in body
    status, headers, body = send(bridge, "/?token=" + bridge.token)
    assert status == 200 and body


@pytest.mark.parametrize("path", PAGE_FILES)
def test_the_pages_own_files_need_no_token_and_set_no_cookie(bridge: Bridge, path: str) -> None:
    """The page's scripts and style sheet, the same for every user, no secret in them: served
    without the token (the page drops it from its address and keeps it in its origin's storage),
    and never a cookie. The page itself (/) needs the token (test_the_page_itself_needs_the_token)."""
    status, headers, body = send(bridge, path)
    assert status == 200 and body
    assert "set-cookie" not in headers
    assert headers["content-security-policy"].startswith("default-src 'none'")
    status, headers, _ = send(bridge, path + "?token=" + bridge.token)
    assert status == 200 and "set-cookie" not in headers


def test_a_post_without_the_token_is_refused_before_anything_is_relayed(bridge: Bridge) -> None:
    mark = len(bridge.stderr)
    status, _, _ = send(bridge, "/rpc?conn=x", "POST", {"Content-Type": "application/json"}, b'{"jsonrpc":"2.0"}')
    assert status == 403
    wait_for(lambda: any("refused POST /rpc: no token" in line for line in bridge.log_since(mark)), 5, "the refusal logged")


def test_the_token_may_come_in_the_url_or_a_header(bridge: Bridge) -> None:
    status, headers, body = send(bridge, "/?token=" + bridge.token)
    assert status == 200 and b"<!doctype html>" in body
    assert headers["x-frame-options"] == "DENY" and headers["referrer-policy"] == "no-referrer"
    status, headers, body = send(bridge, "/app.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript") and b"import" in body
    assert send(bridge, "/ping", headers=authorized(bridge))[0] == 204
    assert send(bridge, "/ping?token=" + bridge.token)[0] == 204


@pytest.mark.parametrize("host", [
    "evil.example:{port}", "evil.example", "127.0.0.1", "localhost", "127.0.0.1:{other}", "localhost:{other}",
    "localhost.evil.example:{port}", "127.0.0.1.evil.example:{port}", "[::1]:{port}", "0.0.0.0:{port}", "",
])
def test_a_foreign_host_is_refused(bridge: Bridge, host: str) -> None:
    """DNS rebinding: a name the attacker controls, resolved to 127.0.0.1, still says its own name."""
    given = host.format(port=bridge.port, other=bridge.port + 1)
    status, _, body = send(bridge, "/", headers={"Host": given, **authorized(bridge)})
    assert status == 403 and b"Host" in body


def test_the_host_must_be_said_once_and_may_be_either_loopback_name(bridge: Bridge) -> None:
    assert send(bridge, "/ping", headers={"Host": None, **authorized(bridge)})[0] == 403
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=5)
    connection.putrequest("GET", "/ping", skip_host=True)
    connection.putheader("Host", "127.0.0.1:%d" % bridge.port)
    connection.putheader("Host", "evil.example:%d" % bridge.port)
    connection.putheader("X-Bindery-Token", bridge.token)
    connection.endheaders()
    assert connection.getresponse().status == 403
    for host in ("127.0.0.1:%d", "localhost:%d", "LOCALHOST:%d"):
        assert send(bridge, "/ping", headers={"Host": host % bridge.port, **authorized(bridge)})[0] == 204


@pytest.mark.parametrize("headers", [
    {"Origin": "http://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://127.0.0.1:{other}"},
    {"Origin": "http://localhost:{other}"},
    {"Origin": "https://127.0.0.1:{port}"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},  # another port of 127.0.0.1 is the same site, not the same origin
])
def test_cross_origin_requests_are_refused(bridge: Bridge, headers: Dict[str, str]) -> None:
    given = {name: value.format(port=bridge.port, other=bridge.port + 1) for name, value in headers.items()}
    for method, path, body in (("GET", "/", None), ("GET", "/ping", None),
                               ("POST", "/rpc?conn=x", b'{"jsonrpc":"2.0","method":"exit"}')):
        extra = {"Content-Type": "application/json"} if body else {}
        status, _, text = send(bridge, path, method, {**given, **extra, **authorized(bridge)}, body)
        assert status == 403 and b"cross-origin" in text, (method, path, given)


def test_same_origin_requests_pass(bridge: Bridge) -> None:
    for headers in ({"Origin": bridge.origin}, {"Origin": "http://localhost:%d" % bridge.port},
                    {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"}):
        assert send(bridge, "/ping", headers={**headers, **authorized(bridge)})[0] == 204


def listening_addresses(port: int) -> List[str]:
    """The local addresses of the listening TCP sockets on `port` (/proc/net/tcp and tcp6)."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as handle:
                rows = handle.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            address, hex_port = fields[1].split(":")
            if int(hex_port, 16) == port and fields[3] == "0A":  # 0A: LISTEN
                found.append(address)
    return found


def test_nothing_listens_beyond_127_0_0_1(bridge: Bridge) -> None:
    assert listening_addresses(bridge.port) == ["0100007F"]  # 127.0.0.1, little-endian
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outward interface
        outward = probe.getsockname()[0]
    if not outward.startswith("127."):
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection((outward, bridge.port), timeout=2).close()
    if socket.has_ipv6:
        with pytest.raises(OSError):
            socket.create_connection(("::1", bridge.port), timeout=2).close()


@pytest.mark.parametrize("path", [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "//etc/passwd", "/static/app.js", "/index.html",
    "/app.js/..", "/./app.js", "/package.json", "/bindery-web", "/test/conftest.py", "/APP.JS", "/app.js%00",
])
def test_no_client_string_becomes_a_path(bridge: Bridge, path: str) -> None:
    status, _, body = send(bridge, path, headers=authorized(bridge))
    assert status == 404, (path, status)
    assert b"root:" not in body


def test_the_relay_refuses_what_is_not_json_for_a_live_connection(bridge: Bridge) -> None:
    json_type = {"Content-Type": "application/json", **authorized(bridge)}
    assert send(bridge, "/rpc?conn=nope", "POST", json_type, b"{}")[0] == 404
    assert send(bridge, "/rpc?conn=nope", "POST", {**authorized(bridge), "Content-Type": "text/plain"}, b"{}")[0] == 415
    assert send(bridge, "/rpc?conn=nope", "POST", json_type, b"{not json")[0] == 400
    assert send(bridge, "/rpc?conn=nope", "POST", json_type, b"NaN")[0] == 400
    assert send(bridge, "/rpc?conn=nope", "POST", {**json_type, "Content-Length": None})[0] == 411
    assert send(bridge, "/rpc", "GET", authorized(bridge))[0] == 404
    assert send(bridge, "/ping", "PUT", authorized(bridge))[0] == 501


def read_events(stream: Any, count: int) -> List[Tuple[str, str]]:
    """The next `count` server-sent events from a raw response: (event, data)."""
    events = []
    event, data = "message", []
    while len(events) < count:
        line = stream.readline().decode().rstrip("\n")
        if line.startswith(":"):
            continue
        if line == "":
            if data:
                events.append((event, "\n".join(data)))
            event, data = "message", []
        elif line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: "):
            data.append(line[6:])
    return events


def test_a_stream_is_one_daemon_client_and_ends_with_it(bridge: Bridge) -> None:
    """Without a browser: the relay's whole path, then the page leaving ends its daemon."""
    mark = len(bridge.stderr)
    connection = http.client.HTTPConnection("127.0.0.1", bridge.port, timeout=10)
    connection.request("GET", "/events", headers=authorized(bridge))
    response = connection.getresponse()
    assert response.status == 200 and response.getheader("Content-Type") == "text/event-stream"
    [(event, data)] = read_events(response, 1)
    assert event == "hello"
    conn = json.loads(data)["conn"]
    lines = b"\n".join(json.dumps(message).encode() for message in (
        {"jsonrpc": "2.0", "id": 1, "method": "session/open", "params": {"type": "email"}},
        {"jsonrpc": "2.0", "id": 2, "method": "setField", "params": {"session": 1, "field": "email", "value": "a@b.co"}},
    ))
    status, _, _ = send(bridge, "/rpc?conn=" + conn, "POST", {"Content-Type": "application/json", **authorized(bridge)}, lines)
    assert status == 204
    messages = [json.loads(data) for _, data in read_events(response, 3)]
    assert messages[0]["result"]["state"]["validationMessage"] == "Email is invalid"
    assert messages[1] == {"jsonrpc": "2.0", "method": "didChange", "params": {
        "session": 1, "revision": 1, "changes": {"isValid": True, "validationMessage": "Email is valid"}, "cause": 2}}
    assert messages[2] == {"jsonrpc": "2.0", "id": 2, "result": {"revision": 1}}
    response.close()
    connection.close()
    wait_for(lambda: any("connection %s: ended" % conn[:6] in line for line in bridge.log_since(mark)), 5,
             "the bridge to notice the page left")
    assert send(bridge, "/rpc?conn=" + conn, "POST", {"Content-Type": "application/json", **authorized(bridge)}, b"{}")[0] == 404


ATTACK = """<!doctype html><title>elsewhere</title><body><script>
const bridge = %(bridge)s;
const tried = [];
fetch(bridge + '/ping', {credentials: 'include', mode: 'no-cors'}).then(() => tried.push('ping'), () => tried.push('ping'));
fetch(bridge + '/rpc?conn=x', {method: 'POST', credentials: 'include', mode: 'no-cors', body: '{}'})
  .then(() => tried.push('rpc'), () => tried.push('rpc'));
const events = new EventSource(bridge + '/events', {withCredentials: true});
events.onerror = () => { events.close(); tried.push('events'); };
const frame = document.createElement('iframe'); frame.src = bridge + '/'; document.body.append(frame);
window.tried = tried;
</script></body>"""


class Elsewhere(str):
    """The URL of a server of another origin; `requests` holds the head of each request it got."""

    requests: List[str]


@pytest.fixture
def elsewhere(bridge: Bridge) -> Iterator[Elsewhere]:
    """A page of another origin — another port of 127.0.0.1, so the same *site*, to which a browser
    sends every cookie of 127.0.0.1 — like another local user's server."""
    page = (ATTACK % {"bridge": json.dumps(bridge.origin)}).encode()
    requests: List[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            requests.append(self.requestline + "\n" + str(self.headers))
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = Elsewhere("http://127.0.0.1:%d/" % server.server_address[1])
    url.requests = requests
    yield url
    server.shutdown()
    server.server_close()


def test_a_page_of_another_origin_gets_nothing_in_a_real_browser(tabs: Dict[str, Page], elsewhere: str) -> None:
    page = tabs["main"]
    page.go("#/")  # the page holds the bridge's token now
    bridge = page.bridge
    mark = len(bridge.stderr)
    page.driver.get(elsewhere)
    page.wait_until(lambda d: len(d.execute_script("return window.tried") or []) >= 3, message="the attempts")
    time.sleep(0.3)
    log = bridge.log_since(mark)
    refused = [line for line in log if "refused" in line]
    for what in ("GET /ping", "POST /rpc", "GET /events", "GET /:"):
        assert any(what in line and "cross-origin" in line for line in refused), (what, log)
    assert not any("started" in line for line in log), log
    page.loaded = False  # the tab left the bridge's page


def test_the_token_never_leaves_its_origin_yet_reloads_and_new_tabs_work(
        tabs: Dict[str, Page], elsewhere: Elsewhere) -> None:
    """A browser sends a cookie of 127.0.0.1 to every port of it — another user's server included.
    The token lives in the bridge's origin's storage: nothing the browser sends elsewhere carries
    it, and a page of another origin cannot read it; the bridge's own page, reloaded or opened in a
    new tab without the token in its address, still finds it."""
    page = tabs["main"]
    page.load("#/")
    bridge = page.bridge
    assert "token" not in page.driver.current_url
    page.driver.get(elsewhere + "?from=bridge")
    page.wait_until(lambda d: len(d.execute_script("return window.tried") or []) >= 3, message="the attempts")
    seen = page.driver.execute_script("return document.cookie + JSON.stringify(Object.assign({}, localStorage))")
    assert bridge.token not in seen
    assert elsewhere.requests and not any(bridge.token in request for request in elsewhere.requests), elsewhere.requests
    # Back to the bridge without the token in the address (a reload, a bookmark, a new tab): live.
    page.driver.get(bridge.origin + "/#/email")
    page.wait_live()
    page.form("email")
    page.driver.switch_to.new_window("tab")
    try:
        page.driver.get(bridge.origin + "/#/email")
        Page(page.driver, page.driver.current_window_handle, bridge).wait_live()
    finally:
        page.driver.close()
        page.driver.switch_to.window(page.handle)
    page.driver.refresh()
    page.wait_live()
    page.loaded = True
