"""The shared mode (`scripts/soak --shared N`): N clients on one `binderyd --listen`, on shared
(keyed) and private sessions, with seeded random traffic and disconnects, checked against a model
of protocol.md's Shared daemon section.

Each client is a socket (NDJSON or LSP framing, chosen per client) with its own fold of every
session it is attached to: the state it was given, every didChange applied, and its own accepted
writes (not echoed). Checked on every message a client reads:

  1. every request is answered exactly once, on the connection that sent it;
  2. per client and session, didChange revisions go up by exactly one, and a setField's response
     names the revision of its client's fold;
  3. a didChange's cause is a request of that client not yet answered; another client's change
     has none;
  4. after every operation, every client asks `session/state` of every session it holds: the
     answer equals its fold, and every client of one session sees the same revision and the same
     values of the members both observe;
  5. a keyed open returns the live session of its key (the same id), or a new one once the key's
     last client left; a private session is unknown to every other client; `expectedRevision`
     is refused (-32023, the current revision and value in `data`, nothing written) exactly
     when it is not the session's revision.

The daemon runs with --deterministic (timers and logins move on `clock/advance` only), so every
outcome is determined, except right after a disconnect (the daemon may read the end of the dead
client's input a little later) and inside bursts (clients writing at once): there the model
accepts either outcome and learns from the answer.
"""
import json
import os
import select
import shutil
import socket
import subprocess
import tempfile
import time

from .jsonwire import parse_daemon_body, same, show
from .values import NUMBERS, STRINGS
from .jsonwire import RawNumber

TYPES = ["email", "survey", "login", "movieList", "addMovie", "addMovie", "bottomBar", "package"]
KEYS = ["form-1", "form-2", "shared", "\u00e9", "e\u0301"]


class Violation(Exception):
    pass


class Client:
    """One connection and what it has been told."""

    def __init__(self, number, path, framing):
        self.number = number
        self.framing = framing
        self.socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.socket.connect(path)
        self.socket.setblocking(False)
        self.buffer = b""
        # Ids of their own per client (1000001..., 2000001...): a response sent to the wrong
        # client names an id that client never used.
        self.next_id = number * 1_000_000
        self.pending = {}       # id -> request record
        self.sessions = {}      # session id -> Fold
        self.alive = True
        self.splices = False    # asked for list splices in initialize
        self.answers = {}       # id -> message, for the soak's waits

    def send(self, message):
        body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode()
        data = body + b"\n" if self.framing == "ndjson" else b"Content-Length: %d\r\n\r\n" % len(body) + body
        self.socket.setblocking(True)
        self.socket.sendall(data)
        self.socket.setblocking(False)

    def request(self, method, params, **record):
        self.next_id += 1
        record.update(method=method, params=params, id=self.next_id, caused=[])
        self.pending[self.next_id] = record
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def bodies(self):
        """The complete messages read so far."""
        while True:
            if self.framing == "ndjson":
                end = self.buffer.find(b"\n")
                if end < 0:
                    return
                body, self.buffer = self.buffer[:end], self.buffer[end + 1:]
                yield body
            else:
                end = self.buffer.find(b"\r\n\r\n")
                if end < 0:
                    return
                header = self.buffer[:end].decode()
                if not header.startswith("Content-Length: ") or "\r\n" in header:
                    raise Violation(f"client {self.number}: a header other than one Content-Length: {header!r}")
                length = int(header[len("Content-Length: "):])
                if len(self.buffer) < end + 4 + length:
                    return
                body = self.buffer[end + 4:end + 4 + length]
                self.buffer = self.buffer[end + 4 + length:]
                yield body


class Fold:
    def __init__(self, session_type, key, revision, state, observed):
        self.type = session_type
        self.key = key
        self.revision = revision
        self.state = dict(state)
        self.observed = observed  # None: all


class SharedSoak:
    def __init__(self, options, clients):
        import random
        self.options = options
        self.rng = random.Random(options.seed)
        self.client_count = clients
        self.clients = []
        self.numbers = 0
        self.keys = {}          # key -> (type, session id) while a client is attached
        self.uncertain = set()  # keys whose last client disconnected: live or gone, the daemon decides
        self.attached = {}      # session id -> set of client numbers
        self.schemas = {}
        self.counts = {"operations": 0, "requests": 0, "didChanges": 0, "disconnects": 0, "stale": 0,
                       "shared opens": 0, "splices": 0, "checks": 0}
        self.log = []

    # The daemon.

    def start(self):
        self.directory = tempfile.mkdtemp(prefix="bindery-soak-")
        self.path = os.path.join(self.directory, "run", "daemon.sock")
        self.stderr = open(os.path.join(self.directory, "stderr"), "wb")
        self.daemon = subprocess.Popen(
            [self.options.daemon, "--listen", self.path, "--deterministic", "--seed", str(self.options.seed)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.monotonic() + 10
        while not os.path.exists(self.path):
            if self.daemon.poll() is not None or time.monotonic() > deadline:
                raise Violation("the daemon did not start listening")
            time.sleep(0.01)
        for _ in range(self.client_count):
            self.connect()
        first = self.clients[0]
        answer = self.call(first, "viewModels/describe", {})
        for schema in answer["result"]["viewModels"]:
            self.schemas[schema["type"]] = schema

    def stop(self):
        if self.daemon.poll() is None:
            self.daemon.terminate()
            try:
                self.daemon.wait(5)
            except subprocess.TimeoutExpired:
                self.daemon.kill()
        self.stderr.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    def connect(self):
        self.numbers += 1
        client = Client(self.numbers, self.path, self.rng.choice(["ndjson", "content-length"]))
        self.clients.append(client)
        # Half the clients take list splices, half whole lists: a shared session serves both.
        if self.rng.random() < 0.5:
            client.splices = True
            answer = self.call(client, "initialize", {"capabilities": {"splices": True}})
            if answer["result"].get("capabilities") != {"splices": True}:
                raise Violation(f"client {client.number}: splices not agreed: {show(answer)}")
        return client

    # Reading and checking.

    def pump(self, until, timeout=10.0):
        """Reads every client's messages, checking each, until `until()` holds."""
        deadline = time.monotonic() + timeout
        while not until():
            if self.daemon.poll() is not None:
                raise Violation(f"the daemon died with code {self.daemon.returncode}")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                waiting = {c.number: [(i, r["method"]) for i, r in sorted(c.pending.items())]
                           for c in self.clients if c.pending}
                raise Violation(f"no answer in {timeout} s; still waiting for {waiting}")
            live = [c for c in self.clients if c.alive]
            readable, _, _ = select.select([c.socket for c in live], [], [], min(remaining, 0.5))
            for client in live:
                if client.socket in readable:
                    self.read(client)

    def read(self, client):
        try:
            chunk = client.socket.recv(1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            raise Violation(f"the daemon closed client {client.number}'s connection")
        client.buffer += chunk
        for body in client.bodies():
            try:
                message = parse_daemon_body(body)
            except ValueError as error:
                raise Violation(f"client {client.number}: not JSON ({error}): {body[:200]!r}")
            self.log.append(f"{client.number} <-- {show(message)}")
            self.check(client, message)

    def check(self, client, message):
        if message.get("method") == "didChange":
            return self.did_change(client, message["params"])
        if "method" in message:
            raise Violation(f"client {client.number}: an unexpected notification {show(message)}")
        request = client.pending.pop(message.get("id"), None)
        if request is None:
            raise Violation(f"client {client.number}: a response to no request of its own (or a second one): "
                            f"{show(message)}")
        client.answers[request["id"]] = message
        self.counts["requests"] += 1
        getattr(self, "answered_" + request["method"].replace("/", "_"), lambda *_: None)(client, request, message)

    def did_change(self, client, params):
        self.counts["didChanges"] += 1
        fold = client.sessions.get(params["session"])
        if fold is None:
            raise Violation(f"client {client.number}: a didChange of session {params['session']}, "
                            "which it is not attached to")
        if params["revision"] != fold.revision + 1:
            raise Violation(f"client {client.number}: session {params['session']} went from revision "
                            f"{fold.revision} to {params['revision']}")
        fold.revision = params["revision"]
        cause = params.get("cause")
        if cause is not None:
            request = client.pending.get(cause)
            if request is None:
                raise Violation(f"client {client.number}: cause {cause} is not a request of its own awaiting an answer")
            request["caused"].append(params)
        for name, value in params.get("changes", {}).items():
            if fold.observed is not None and name not in fold.observed:
                raise Violation(f"client {client.number}: told {name}, which it does not observe")
            fold.state[name] = value
        splices = params.get("splices", {})
        if splices and not client.splices:
            raise Violation(f"client {client.number} did not ask for splices, and was sent some")
        for name, splice in splices.items():
            self.counts["splices"] += 1
            if name in params.get("changes", {}) or name not in fold.state:
                raise Violation(f"client {client.number}: a splice of {name}, which is in changes or not observed")
            current = list(fold.state[name])
            for op in splice["ops"]:
                current[op["at"]:op["at"] + op["delete"]] = op["insert"]
            if len(current) != splice["length"]:
                raise Violation(f"client {client.number}: a splice of {name} leaves {len(current)} elements, "
                                f"the daemon says {splice['length']}")
            fold.state[name] = current

    # Outcomes.

    def answered_session_open(self, client, request, message):
        params = request["params"]
        key = params.get("key")
        if "error" in message:
            code = message["error"]["code"]
            live = self.keys.get(key)
            if code == -32018 and key is not None and (key in self.uncertain or request.get("burst")
                                                        or (live and live[0] != params["type"])):
                if key in self.uncertain:
                    self.keys[key] = (message["error"]["data"]["type"], None)
                return
            raise Violation(f"client {client.number}: session/open failed: {show(message)}")
        result = message["result"]
        session = result["session"]
        live = self.keys.get(key) if key is not None else None
        reopened = result.get("reopened")
        if key is not None:
            if key in self.uncertain:
                self.uncertain.discard(key)
            elif live and live[1] is not None and (live[1] != session or not reopened) and not request.get("burst"):
                raise Violation(f"client {client.number}: key {key!r} is held by session {live[1]}, "
                                f"open returned {session} (reopened {reopened})")
            elif not live and reopened and not request.get("burst"):
                raise Violation(f"client {client.number}: key {key!r} has no live session, yet reopened is true")
            self.keys[key] = (params["type"], session)
            if reopened:
                self.counts["shared opens"] += 1
        observed = params.get("observe")
        if session in client.sessions:  # its own key again: observe ignored, the fold must match
            self.compare(client, session, result["revision"], result["state"], "reopen")
            return
        client.sessions[session] = Fold(params["type"], key, result["revision"], result["state"],
                                        None if observed is None else set(observed))
        self.attached.setdefault(session, set()).add(client.number)

    def answered_setField(self, client, request, message):
        params = request["params"]
        fold = client.sessions.get(params["session"])
        if fold is None:
            return
        if "error" in message:
            error = message["error"]
            if error["code"] == -32023:
                self.counts["stale"] += 1
                expected = params.get("expectedRevision")
                if expected == fold.revision and not request.get("burst"):
                    raise Violation(f"client {client.number}: refused as stale at its own current revision {expected}")
                if error["data"]["revision"] != fold.revision:
                    raise Violation(f"client {client.number}: -32023 names revision {error['data']['revision']}, "
                                    f"the fold is at {fold.revision}")
                field = params["field"]
                if field in fold.state and not same(error["data"]["value"], fold.state[field]):
                    raise Violation(f"client {client.number}: -32023 value {show(error['data']['value'])}, "
                                    f"the fold holds {show(fold.state[field])}")
            return
        if params.get("expectedRevision") is not None and params["expectedRevision"] != fold.revision - len(request["caused"]) \
                and not request.get("burst"):
            raise Violation(f"client {client.number}: a write with expectedRevision {params['expectedRevision']} "
                            f"was taken at revision {fold.revision - len(request['caused'])}")
        if message["result"]["revision"] != fold.revision:
            raise Violation(f"client {client.number}: setField answered revision {message['result']['revision']}, "
                            f"its fold is at {fold.revision}")
        field = params["field"]
        echoed = any(field in change.get("changes", {}) for change in request["caused"])
        if not echoed and field in fold.state:
            fold.state[field] = params["value"]

    def answered_session_state(self, client, request, message):
        session = request["params"]["session"]
        if session not in client.sessions:
            if "error" not in message or message["error"]["code"] != -32011:
                raise Violation(f"client {client.number}: session/state of a session it does not hold: {show(message)}")
            return
        result = message["result"]
        self.compare(client, session, result["revision"], result["state"], "session/state")
        request["seen"] = (result["revision"], result["state"])

    def answered_session_observe(self, client, request, message):
        session = request["params"]["session"]
        fold = client.sessions.get(session)
        if fold is None or "error" in message:
            return
        if message["result"]["revision"] != fold.revision:
            raise Violation(f"client {client.number}: observe answered revision {message['result']['revision']}, "
                            f"the fold is at {fold.revision}")
        fold.state = dict(message["result"]["state"])
        fold.observed = set(request["params"]["properties"])

    def answered_session_close(self, client, request, message):
        session = request["params"]["session"]
        fold = client.sessions.pop(session, None)
        if fold is None:
            return
        if "error" in message:
            raise Violation(f"client {client.number}: session/close of its session {session} failed: {show(message)}")
        self.detach(client.number, session, fold.key)

    def detach(self, number, session, key, uncertain=False):
        holders = self.attached.get(session, set())
        holders.discard(number)
        if not holders:
            self.attached.pop(session, None)
            if key is not None and self.keys.get(key, (None, None))[1] == session:
                del self.keys[key]
                if uncertain:
                    self.uncertain.add(key)

    def compare(self, client, session, revision, state, what):
        self.counts["checks"] += 1
        fold = client.sessions[session]
        if revision != fold.revision:
            raise Violation(f"client {client.number}: {what} of session {session} says revision {revision}, "
                            f"its fold {fold.revision}")
        if set(state) != set(fold.state) or any(not same(state[k], fold.state[k]) for k in state):
            differing = {k: (fold.state.get(k), state.get(k)) for k in set(state) | set(fold.state)
                         if k not in state or k not in fold.state or not same(state[k], fold.state[k])}
            raise Violation(f"client {client.number}: its fold of session {session} differs from {what}: "
                            f"(fold, daemon) {show(differing)}")

    # Traffic.

    def call(self, client, method, params, **record):
        request_id = client.request(method, params, **record)
        self.pump(lambda: request_id in client.answers)
        return client.answers.pop(request_id)

    def value_for(self, field):
        roll = self.rng.random()
        if roll < 0.08:
            return self.rng.choice([None, True, "wrong", 7, [1]])
        kind = field["type"]
        if field.get("nullable") and roll < 0.15:
            return None
        if kind == "string":
            return self.rng.choice(STRINGS)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "enum":
            return self.rng.choice(field["cases"])
        if kind == "integer":
            return self.rng.randint(-5, 50)
        if kind == "number":
            return self.rng.choice([n for n in NUMBERS if not isinstance(n, RawNumber) and abs(n) < 1e30])
        return None

    def operation(self, client, burst=False):
        rng = self.rng
        roll = rng.random()
        held = sorted(client.sessions)
        if roll < 0.18 or not held:
            session_type = rng.choice(TYPES)
            params = {"type": session_type}
            if rng.random() < 0.7:
                params["key"] = rng.choice(KEYS)
            if rng.random() < 0.3:
                members = [f["name"] for f in self.schemas[session_type]["fields"]]
                params["observe"] = rng.sample(members, rng.randint(1, len(members)))
            return client.request("session/open", params, burst=burst)
        session = rng.choice(held)
        fold = client.sessions[session]
        schema = self.schemas[fold.type]
        writable = [f for f in schema["fields"] if f["writable"]]
        if roll < 0.6 and writable:
            field = rng.choice(writable)
            params = {"session": session, "field": field["name"], "value": self.value_for(field)}
            if rng.random() < 0.3:
                params["expectedRevision"] = fold.revision - (1 if rng.random() < 0.3 and fold.revision else 0)
            return client.request("setField", params, burst=burst)
        if roll < 0.7 and schema["commands"]:
            command = rng.choice(schema["commands"])
            params = {"session": session, "command": command["name"]}
            if rng.random() < 0.2:
                params["expectedRevision"] = fold.revision
            request_id = client.request("invoke", params, burst=burst)
            # An async command answers when the virtual clock lets it end: do not wait for it.
            return None if command.get("async") else request_id
        if roll < 0.78:
            return client.request("clock/advance", {"ms": rng.choice([1, 100, 1500, 2000, 5000])}, burst=burst)
        if roll < 0.84:
            members = [f["name"] for f in schema["fields"]]
            return client.request("session/observe",
                                  {"session": session, "properties": rng.sample(members, rng.randint(1, len(members)))},
                                  burst=burst)
        if roll < 0.92:
            return client.request("session/close", {"session": session}, burst=burst)
        # Another client's private session, or one never opened: unknown to this one.
        others = [s for s, holders in self.attached.items() if client.number not in holders]
        return client.request("session/state", {"session": rng.choice(others) if others else 10 ** 6}, burst=burst)

    def disconnect(self):
        client = self.rng.choice(self.clients)
        if self.rng.random() < 0.5 and client.sessions:
            # Killed while writing a request: half of it reaches the daemon, never to be handled.
            session = self.rng.choice(sorted(client.sessions))
            text = json.dumps({"jsonrpc": "2.0", "id": 999999, "method": "setField",
                               "params": {"session": session, "field": "x", "value": "half"}})
            client.socket.setblocking(True)
            client.socket.sendall(text[: len(text) // 2].encode())
        client.socket.close()
        client.alive = False
        self.clients.remove(client)
        self.counts["disconnects"] += 1
        for session, fold in client.sessions.items():
            self.detach(client.number, session, fold.key, uncertain=True)
        self.connect()

    def check_everyone(self):
        """Every client asks the state of every session it holds; all must match their folds and
        agree with each other."""
        asked = []
        for client in self.clients:
            for session in sorted(client.sessions):
                asked.append((client, client.request("session/state", {"session": session})))
        self.pump(lambda: all(request_id in client.answers for client, request_id in asked))
        for client, request_id in asked:
            client.answers.pop(request_id)  # each was compared with the fold as it arrived
        seen = {}
        # Agreement between clients: the same revision, the same values of shared members.
        for client in self.clients:
            for session, fold in client.sessions.items():
                if session in seen:
                    revision, state, other = seen[session]
                    if revision != fold.revision:
                        raise Violation(f"clients {other} and {client.number} see session {session} at revisions "
                                        f"{revision} and {fold.revision}")
                    for name in set(state) & set(fold.state):
                        if not same(state[name], fold.state[name]):
                            raise Violation(f"clients {other} and {client.number} disagree on {name} of session "
                                            f"{session}: {show(state[name])} / {show(fold.state[name])}")
                else:
                    seen[session] = (fold.revision, fold.state, client.number)

    def step(self):
        roll = self.rng.random()
        if roll < 0.04:
            self.disconnect()
            time.sleep(0.002)
        elif roll < 0.2:
            # A burst: several clients write at once; outcomes that depend on the order are learned.
            sent = [(client, self.operation(client, burst=True)) for client in self.rng.sample(
                self.clients, self.rng.randint(2, len(self.clients)))]
            sent = [(client, request_id) for client, request_id in sent if request_id is not None]
            self.pump(lambda: all(request_id in client.answers for client, request_id in sent))
            for client, request_id in sent:
                client.answers.pop(request_id, None)
        else:
            client = self.rng.choice(self.clients)
            request_id = self.operation(client)
            if request_id is not None:
                self.pump(lambda: request_id in client.answers)
                client.answers.pop(request_id, None)
        self.counts["operations"] += 1
        self.check_everyone()

    def run(self):
        print(f"soak --shared {self.client_count}: seed {self.options.seed}")
        started = time.monotonic()
        try:
            self.start()
            while True:
                if self.options.operations is not None and self.counts["operations"] >= self.options.operations:
                    break
                if self.options.seconds is not None and time.monotonic() - started >= self.options.seconds:
                    break
                self.step()
        except Violation as violation:
            print(f"VIOLATION (seed {self.options.seed}): {violation}")
            print("last messages:")
            for line in self.log[-40:]:
                print("  " + line[:400])
            return 1
        finally:
            self.stop()
        elapsed = time.monotonic() - started
        figures = ", ".join(f"{value} {name}" for name, value in self.counts.items())
        print(f"no violation in {elapsed:.1f} s: {figures}")
        return 0
