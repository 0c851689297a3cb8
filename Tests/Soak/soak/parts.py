"""What an operation of the generator returns: its message parts (with where each may go in a batch),
raw bytes that are not JSON, the context it runs in, and the generator's record of a session."""



class Raw:
    """Bytes that are not a JSON text: a framed body, or (stream) garbage between frames."""

    def __init__(self, data, stream=False, nulls=1):
        self.data, self.stream, self.nulls = data, stream, nulls


class Part:
    """One message of an operation, with where it may go in a batch:
    body: anywhere; tail: after every element that may change a session (it is a snapshot);
    async: an async command (a batch holds at most one, and then no snapshot); top: not in a batch."""
    __slots__ = ("message", "role")

    def __init__(self, message, role="body"):
        self.message, self.role = message, role


class Context:
    def __init__(self, in_batch=False, allow_async=True, allow_wait=True):
        self.in_batch, self.allow_async, self.allow_wait = in_batch, allow_async, allow_wait


TOP_LEVEL = Context()


class GeneratedSession:
    def __init__(self, open_id, type_name, key):
        self.open_id, self.type, self.key = open_id, type_name, key
        self.id = None
        self.failed = self.closed = False
        self.snapshot_id = open_id          # the latest request whose answer holds the state
        self.seen_state = None              # the state of the latest answer waited for
        self.written = {}                   # field -> last value written, for equal-but-different ones
