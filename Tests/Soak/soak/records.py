"""The records the model keeps: the Violation it raises, schemas, requests, batches, writes, the
client's view of each session, ordering barriers, and a compact set of answered ids."""
import json


class Violation(Exception):
    """check: the short name of the broken check; tag narrows it (the method, the expected
    outcome): a reproducer is shrunk while the same check and tag keep failing."""

    def __init__(self, check, message, tag=""):
        super().__init__(message)
        self.check, self.tag = check, tag


class Schema:
    def __init__(self, description):
        self.type = description["type"]
        self.fields = {f["name"]: f for f in description.get("fields", [])}
        self.commands = {c["name"]: c for c in description.get("commands", [])}
        self.writable = [name for name, f in self.fields.items() if f.get("writable")]
        command_members = [f"{c}.{part}" for c in self.commands for part in ("enabled", "running")]
        self.members = list(self.fields) + command_members
        self.member_set = set(self.members)


class Request:
    __slots__ = ("key", "id", "seq", "method", "params", "batch", "clock", "closed_before", "shut_down",
                 "cancel_allowed")

    def __init__(self, key, id_value, seq, method, params, batch):
        self.key, self.id, self.seq, self.method, self.params, self.batch = key, id_value, seq, method, params, batch
        self.clock = 0
        self.closed_before = False
        self.shut_down = False
        self.cancel_allowed = False

    def describe(self):
        where = " (in a batch)" if self.batch is not None else ""
        return f"{self.method} id {json.dumps(self.id, ensure_ascii=True)}{where}"


class Batch:
    def __init__(self):
        self.expected = []      # per answerable element: its id key, or None for an id-null answer
        self.requests = []      # the element requests, in order


class Write:
    """A setField whose outcome is not known yet; folded at the point the daemon handled it."""
    __slots__ = ("request", "session", "field", "value", "applied")

    def __init__(self, request, session, field, value):
        self.request, self.session, self.field, self.value = request, session, field, value
        self.applied = False


class SessionView:
    """The client's fold of one session."""

    def __init__(self, session_id, type_name, state, observed, seq):
        self.id, self.type = session_id, type_name
        self.state = dict(state)
        self.observed = set(observed)
        self.revision = 0
        self.snapshot_seq = seq          # the fold was last reset by the request with this seq
        self.write_seq = {}              # field -> seq of the write folded last
        self.origin = {}                 # member -> what set the fold's value, for reports
        self.keys = set()


class Barrier:
    """Requests that must be answered before anything caused by messages after `seq`."""

    def __init__(self, seq, reason, targets):
        self.seq, self.reason, self.targets = seq, reason, targets


class IdSet:
    """Answered ids: a bitmap for small non-negative integers (the soak's own), a set otherwise."""

    def __init__(self):
        self.bits = bytearray()
        self.others = set()

    def add(self, key):
        if type(key) is int and 0 <= key < 1 << 28:
            index = key >> 3
            if index >= len(self.bits):
                self.bits.extend(bytes(max(index + 1 - len(self.bits), len(self.bits))))
            self.bits[index] |= 1 << (key & 7)
        else:
            self.others.add(key)

    def __contains__(self, key):
        if type(key) is int and 0 <= key < 1 << 28:
            index = key >> 3
            return index < len(self.bits) and bool(self.bits[index] & (1 << (key & 7)))
        return key in self.others
