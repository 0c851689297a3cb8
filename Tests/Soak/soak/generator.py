"""Traffic: the seeded generator. It decides only from the seed and from answers it waits for (never
from timing), so a seed always sends the same messages. Holds the id and session bookkeeping, and
how operations are grouped into singles, batches and bursts; the operations themselves are in
operations.py, what they return in parts.py."""
import collections

from .operations import Operations
from .parts import Context, Part, Raw, TOP_LEVEL
from .records import Schema
from .values import Values


class Traffic(Operations):
    MAX_SESSIONS = 32

    def __init__(self, rng, link, deterministic, framing):
        self.rng, self.link, self.deterministic, self.framing = rng, link, deterministic, framing
        self.values = Values(rng)
        self.counter = 0
        self.schemas = {}
        self.symbols = ["He"]
        self.sessions = []                  # open (or opening) sessions
        self.closed_ids = collections.deque(maxlen=16)
        self.keys = {}                      # key -> GeneratedSession holding it
        self.logins = collections.deque(maxlen=12)
        self.recent_ids = collections.deque(maxlen=12)
        self.building = None                # ids in the batch being built: not sent yet
        self.operations = [
            (self.op_open, 8, "tail"), (self.op_reopen, 4, "tail"), (self.op_close, 4, "body"),
            (self.op_state, 7, "tail"), (self.op_observe, 3, "tail"), (self.op_set, 26, "body"),
            (self.op_set_wrong, 7, "body"), (self.op_write_back, 6, "body"), (self.op_invoke, 6, "body"),
            (self.op_login, 6, "async"), (self.op_cancel, 5, "body"), (self.op_clock, 4, "top"),
            (self.op_describe, 2, "body"), (self.op_invalid, 5, "body"), (self.op_garbage, 2, "top"),
        ]

    # -- ids, messages, sessions -------------------------------------------------------------------

    def new_id(self):
        self.counter += 1
        roll = self.rng.random()
        if roll < 0.85:
            return self.counter
        if roll < 0.96:
            return f"r{self.counter}"
        # A string id with a canonically-equivalent twin, for $/cancelRequest to tell apart.
        return self.rng.choice(["caf\u00e9-", "cafe\u0301-", "\u212a-", "K-"]) + str(self.counter)

    def request(self, method, params=None, id_value=None):
        id_value = self.new_id() if id_value is None else id_value
        if self.building is not None:
            self.building.add(id_value)
        self.recent_ids.append(id_value)
        message = {"jsonrpc": "2.0", "id": id_value, "method": method}
        if params is not None:
            message["params"] = params
        return message

    @staticmethod
    def notification(method, params=None):
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return message

    def startup(self):
        """Learns the schemas (and the element symbols) before the random traffic."""
        first = self.request("initialize", {"processId": None, "capabilities": {}}) \
            if self.rng.random() < 0.5 else self.request("viewModels/describe")
        self.link.send_parts([Part(first)])
        answer = self.link.response(first["id"])
        for description in answer["result"]["viewModels"]:
            self.schemas[description["type"]] = Schema(description)
        if "element" in self.schemas:
            probe = self.request("session/open", {"type": "element", "args": {"symbol": "Xx"}})
            self.link.send_parts([Part(probe)])
            error = self.link.response(probe["id"]).get("error") or {}
            known = (error.get("data") or {}).get("known")
            if isinstance(known, list) and known:
                self.symbols = [str(s) for s in known]

    def open_sessions(self, predicate=None):
        return [s for s in self.sessions if not s.closed and not s.failed and (predicate is None or predicate(s))]

    def resolve(self, session):
        """The session's id, waiting for its session/open answer (a deterministic outcome)."""
        if session.id is None and not session.failed:
            answer = self.link.response(session.open_id)
            if "result" in answer:
                session.id = answer["result"]["session"]
                session.seen_state = answer["result"].get("state")
            else:
                self.drop(session)
        return session.id

    def drop(self, session):
        session.failed = True
        self.sessions.remove(session)
        if session.key is not None and self.keys.get(session.key) is session:
            del self.keys[session.key]

    def pick_session(self, predicate=None):
        for _ in range(6):
            candidates = self.open_sessions(predicate)
            if self.building is not None:
                candidates = [s for s in candidates if s.open_id not in self.building]
            if not candidates:
                return None
            # Mostly sessions already resolved: each wait for an answer costs a round trip.
            resolved = [s for s in candidates if s.id is not None]
            if resolved and self.rng.random() < 0.8:
                candidates = resolved
            session = self.rng.choice(candidates)
            if self.resolve(session) is not None:
                return session
        return None

    def unknown_session(self):
        closed = list(self.closed_ids)
        return self.rng.choice(closed + [0, -1, 2 ** 40 + self.counter] if closed else [0, -1, 2 ** 40])

    def schema_of(self, session):
        return self.schemas[session.type]

    # -- chunks: one operation, a batch, or a pipelined burst --------------------------------------

    def pick_operation(self, roles):
        choices = [(op, weight) for op, weight, role in self.operations if role in roles]
        if len(self.open_sessions()) > self.MAX_SESSIONS:
            choices = [(op, w * (5 if op == self.op_close else 1)) for op, w in choices
                       if op not in (self.op_open, self.op_reopen)]
        total = sum(w for _, w in choices)
        roll = self.rng.random() * total
        for op, weight in choices:
            roll -= weight
            if roll < 0:
                return op
        return choices[-1][0]

    def next_chunk(self):
        """("single", parts sent one by one), ("batch", parts sent as one array), or ("burst",
        None): many single operations sent before reading any answer (pipelining)."""
        roll = self.rng.random()
        if roll < 0.12:
            return "batch", self.batch()
        if roll < 0.17:
            return "burst", None
        return "single", self.single()

    def single(self):
        if not self.open_sessions() and self.rng.random() < 0.8:
            op = self.op_open
        else:
            op = self.pick_operation({"body", "tail", "async", "top"})
        return op(TOP_LEVEL) or []

    def batch(self):
        """A batch: body elements, then snapshots. With an async command (whose answer belongs in
        the array, so the array waits for it) it holds no snapshot and nothing to wait for."""
        rng = self.rng
        with_async = rng.random() < 0.3
        context = Context(in_batch=True, allow_async=False, allow_wait=not with_async)
        self.building = set()
        body, tail = [], []
        try:
            if with_async:
                body += self.op_login(Context(in_batch=True)) or []
            for _ in range(rng.randint(1, 7)):
                roles = {"body", "top"} if with_async else {"body", "tail", "top"}
                op = self.pick_operation(roles)
                if with_async and op in (self.op_open, self.op_write_back, self.op_close):
                    continue         # they wait for (or hang on) answers: not while the array may be held
                for part in op(context) or []:
                    if isinstance(part.message, Raw):
                        continue
                    (tail if part.role == "tail" else body).append(part)
        finally:
            self.building = None
        return body + tail

    def finish(self):
        """Final snapshots of every open session."""
        parts = []
        for session in self.open_sessions():
            if self.resolve(session) is not None:
                message = self.request("session/state", {"session": session.id})
                parts.append(Part(message))
        return parts
