"""The model of the exchange: what the client sent (numbering, batches, barriers) and the checks run on
every message the daemon writes (shape, ids, revisions, causes, turns, the fold). The expected
outcomes of responses are in expectations.py."""
import json

from .constants import BINDERY_METHODS, SESSION_METHODS
from .expectations import Expectations
from .jsonwire import canon, id_key, parse_client_body, show
from .records import Barrier, Batch, IdSet, Request, Violation, Write


class Model(Expectations):
    """Follows the exchange: on_send for what the client writes (in order), on_receive for every
    message the daemon writes. Raises Violation. Expectations are derived from the messages
    themselves (not from the traffic generator), so that a reproducer can be replayed."""

    def __init__(self, deterministic):
        self.deterministic = deterministic
        self.seq = 0
        self.clock = 0                       # the virtual clock as the daemon will see it
        self.pending = {}                    # id key -> Request not answered yet
        self.answered = IdSet()
        self.batches = []                    # Batch not answered yet
        self.expected_nulls = 0              # standalone id-null answers still due
        self.writes = {}                     # id key -> Write
        self.views = {}                      # session id -> SessionView (open, as far as answered)
        self.closed_views = {}               # session id -> SessionView whose close was answered
        self.key_holders = {}                # session key -> SessionView holding it
        self.close_sent = set()              # session ids a close was sent for
        self.barriers = []
        self.async_running = {}              # id key -> invoke that may still be running
        self.schemas = {}
        self.all_types_known = False         # from initialize, or viewModels/describe of all types
        self.symbols = None                  # element symbols, from a -32018's data.known
        self.daemon_values = {}              # (type, field) -> {canon(value): None}, values it sent
        self.shut_down = False
        self.exit_sent = False
        self.exit_code = 0                   # what binderyd must exit with (1: exit without shutdown)
        self.input_ended = False
        self.turn = None
        self.watched = {}                    # id key -> response, for the traffic generator
        self.watching = set()
        self.received = 0

    # -- sending -----------------------------------------------------------------------------------

    def on_send(self, body):
        value, _ = parse_client_body(body)
        if value is None:
            if body.strip():
                self.expected_nulls += 1     # -32700, id null
            return
        if isinstance(value, list):
            if not value:
                self.expected_nulls += 1     # an empty batch: one -32600
                return
            batch = Batch()
            for element in value:
                self._send_element(element, batch)
            if batch.expected:
                self.batches.append(batch)
        else:
            self._send_element(value, None)

    def on_send_stream(self, nulls):
        """Framing garbage between frames: each piece is answered by one -32700, id null."""
        self.expected_nulls += nulls

    def on_input_end(self):
        """stdin closed: commands still running once the input is handled may be cancelled."""
        self.input_ended = True

    def _expect_null(self, batch):
        if batch is None:
            self.expected_nulls += 1
        else:
            batch.expected.append(None)

    def _send_element(self, element, batch):
        self.seq += 1
        seq = self.seq
        if type(element) is not dict:
            return self._expect_null(batch)
        has_id = "id" in element
        id_value = element.get("id")
        if has_id and id_value is not None and id_key(id_value) is None:
            return self._expect_null(batch)          # an id that is not a string or an integer
        if "method" not in element and has_id and ("result" in element or "error" in element):
            return                                   # a response sent by the client: dropped
        params = element.get("params")
        invalid = ("method" not in element or element.get("jsonrpc") != "2.0"
                   or not isinstance(element.get("method"), str)
                   or (params is not None and type(params) not in (dict, list)))
        if not has_id and not invalid:
            return self._send_notification(element["method"], params, seq, batch)
        if id_value is None:
            return self._expect_null(batch)
        key = id_key(id_value)
        if key in self.pending or key in self.answered:
            return                                   # the soak never reuses an id
        request = Request(key, id_value, seq, element.get("method") if not invalid else None,
                          params if type(params) is dict else None, batch)
        request.shut_down = self.shut_down
        if invalid:
            request.method = "<invalid>"
        elif type(params) is list and element["method"] in BINDERY_METHODS - {"initialize"}:
            request.method = "<array params>"
        self.pending[key] = request
        if batch is not None:
            batch.expected.append(key)
            batch.requests.append(request)
        if not request.shut_down:
            self._note_request(request)

    def _note_request(self, request):
        """Bookkeeping that must follow send order (= the order the daemon handles)."""
        method, params = request.method, request.params or {}
        session = params.get("session")
        if method in SESSION_METHODS:
            request.closed_before = session in self.close_sent
        if method == "shutdown":
            self.shut_down = True
        elif method == "session/close" and type(session) is int:
            self.close_sent.add(session)
            invokes = [r for r in self.pending.values() if r.method == "invoke" and r is not request
                       and (r.params or {}).get("session") == session]
            for invoke in invokes:
                invoke.cancel_allowed = True
            targets = {r.key for r in invokes if r.batch is None}
            self._add_barrier(request.seq, f"session/close of session {session} ({request.describe()})", targets)
        elif method == "setField" and "field" in params and "value" in params:
            self.writes[request.key] = Write(request, session, params["field"], params["value"])
        elif method == "invoke":
            request.clock = self.clock
            self.async_running[request.key] = request
        elif method == "clock/advance":
            ms = params.get("ms")
            if request.batch is None and self.deterministic and type(ms) is int and ms >= 0:
                self.clock += ms
            request.clock = self.clock

    def _send_notification(self, method, params, seq, batch):
        if method == "exit":
            self.exit_sent = True
            self.exit_code = 0 if self.shut_down else 1
        if method == "$/cancelRequest" and type(params) is dict:
            key = id_key(params.get("id"))
            target = self.pending.get(key)
            if target is not None:
                target.cancel_allowed = True
                if target.batch is None:
                    self._add_barrier(seq, f"$/cancelRequest of {target.describe()}", {key})

    def _add_barrier(self, seq, reason, targets):
        """Targets sent on their own (not in a batch: its array is checked instead) must be
        answered before anything caused by a message after `seq` (check 5)."""
        targets = {k for k in targets if k in self.pending}
        if targets:
            self.barriers.append(Barrier(seq, reason, targets))

    # -- receiving ---------------------------------------------------------------------------------

    def watch(self, key):
        self.watching.add(key)

    def response(self, key):
        return self.watched.get(key)

    def forget(self, key):
        self.watching.discard(key)
        self.watched.pop(key, None)

    def on_receive(self, item):
        self.received += 1
        if item.fault:
            raise Violation("transport", f"binderyd wrote something that is not a JSON-RPC message: "
                                         f"{item.fault}: {item.raw[:200]!r}")
        message = item.message
        previous_turn, self.turn = self.turn, None
        if type(message) is list:
            return self._on_array(message)
        self._check_shape(message)
        if "method" in message:
            return self._on_did_change(message["params"], previous_turn)
        if message["id"] is None:
            self.expected_nulls -= 1
            if self.expected_nulls < 0:
                raise Violation("response", "a response with id null that answers nothing this client sent")
            return
        self._on_response(message, None)

    def _check_shape(self, message, in_array=False):
        def bad(why):
            raise Violation("transport", f"not a JSON-RPC 2.0 message ({why}): {show(message)}")
        if type(message) is not dict:
            bad("not an object")
        if message.get("jsonrpc") != "2.0":
            bad('"jsonrpc" is not "2.0"')
        keys = set(message)
        if "method" in message:
            if in_array or keys != {"jsonrpc", "method", "params"} or message["method"] != "didChange":
                bad("the only notification binderyd sends is didChange, with jsonrpc, method and params")
            return
        if keys not in ({"jsonrpc", "id", "result"}, {"jsonrpc", "id", "error"}):
            bad("a response has jsonrpc, id and one of result or error")
        if message["id"] is not None and id_key(message["id"]) is None:
            bad("an id that is neither a string, an integer nor null")
        if "error" in message:
            error = message["error"]
            if (type(error) is not dict or type(error.get("code")) is not int
                    or type(error.get("message")) is not str or not set(error) <= {"code", "message", "data"}):
                bad("an error has an integer code, a string message and maybe data")

    def _check_barriers(self, seq, what):
        """Check 5: nothing caused by a message sent after a cancellation (or a close) may come
        before the cancelled command's answer."""
        for barrier in self.barriers:
            if barrier.seq < seq and barrier.targets:
                waiting = ", ".join(self.pending[k].describe() for k in barrier.targets if k in self.pending)
                raise Violation("order", f"{what} came before the answer of {waiting}, though it was caused "
                                         f"by a message sent after the {barrier.reason}")

    def _answered(self, request):
        key = request.key
        del self.pending[key]
        self.answered.add(key)
        self.async_running.pop(key, None)
        if self.barriers:
            for barrier in self.barriers:
                barrier.targets.discard(key)
            self.barriers = [b for b in self.barriers if b.targets]

    def _on_array(self, array):
        if not array:
            raise Violation("transport", "an empty array")
        for element in array:
            self._check_shape(element, in_array=True)
        keys = [id_key(e["id"]) if e["id"] is not None else None for e in array]
        batch = self._batch_for(keys)
        if batch is None:
            raise Violation("batch", f"an array of responses (ids {[e['id'] for e in array]}) that answers "
                                     f"no batch this client sent (or not exactly one)")
        if keys != batch.expected:
            missing = [self.pending[k].describe() for k in batch.expected if k is not None and k not in keys]
            raise Violation("batch", f"a batch's array must hold exactly the responses to its requests, in "
                                     f"order: expected ids {self._ids(batch.expected)}, got "
                                     f"{[e['id'] for e in array]}" + (f"; missing {missing}" if missing else ""))
        self.batches.remove(batch)
        self._check_barriers(max(r.seq for r in batch.requests) if batch.requests else 0, "a batch's array")
        for element in array:
            if element["id"] is not None:
                self._on_response(element, batch)

    def _ids(self, keys):
        return [None if k is None else self.pending[k].id if k in self.pending else k for k in keys]

    def _batch_for(self, keys):
        for key in keys:
            if key is not None:
                request = self.pending.get(key)
                return request.batch if request is not None else None
        for batch in self.batches:       # only id-null answers: the oldest batch of that shape
            if all(k is None for k in batch.expected) and len(batch.expected) == len(keys):
                return batch
        return None

    def _on_response(self, message, batch):
        key = id_key(message["id"])
        request = self.pending.get(key)
        if request is None:
            again = "a second response" if key in self.answered else "a response"
            raise Violation("response", f"{again} to id {json.dumps(message['id'])}, which "
                                        f"{'was already answered' if key in self.answered else 'this client never sent'}")
        if request.batch is not None and batch is None:
            raise Violation("batch", f"{request.describe()} was answered on its own, outside its batch's "
                                     f"array (protocol.md: a batch is answered by one array holding the "
                                     f"responses to its requests)")
        self._check_barriers(request.seq, f"the response to {request.describe()}")
        self._answered(request)
        self._check_outcome(request, message)
        if key in self.watching:
            self.watched[key] = message
        self._apply_response(request, message)

    # -- didChange ---------------------------------------------------------------------------------

    def _on_did_change(self, params, previous_turn):
        if (type(params) is not dict or type(params.get("session")) is not int
                or type(params.get("revision")) is not int or type(params.get("changes")) is not dict
                or not set(params) <= {"session", "revision", "changes", "cause"}):
            raise Violation("transport", f"a malformed didChange: {show(params)}")
        session, revision, changes = params["session"], params["revision"], params["changes"]
        view = self.views.get(session)
        if view is None:
            state = "closed (its session/close was answered)" if session in self.closed_views else "never opened"
            raise Violation("revision", f"a didChange for session {session}, which is {state}")
        cause = None
        if "cause" in params:
            cause = self.pending.get(id_key(params["cause"]))
            if cause is None:
                why = "already answered" if id_key(params["cause"]) in self.answered else "never sent by this client"
                raise Violation("cause", f"didChange (session {session}, revision {revision}) names cause "
                                         f"{json.dumps(params['cause'])}, a request {why}")
            self._check_barriers(cause.seq, f"a didChange caused by {cause.describe()}")
            self._check_turn(cause, session, previous_turn)
            write = self.writes.get(cause.key)
            if write is not None and write.session == session and not write.applied:
                self._fold_write(view, write)
        if revision != view.revision + 1:
            raise Violation("revision", f"session {session} went from revision {view.revision} to {revision}: "
                                        f"revisions must go up by exactly one")
        view.revision = revision
        where = f"didChange revision {revision}" + (f" (cause {json.dumps(cause.id)})" if cause else "")
        for name, value in changes.items():
            if name not in view.observed:
                raise Violation("members", f"{where} of session {session} carries {name!r}, which the "
                                           f"session does not observe ({sorted(view.observed)})")
            view.state[name] = value
            view.origin[name] = where
            self._note_daemon_value(view.type, name, value)

    def _check_turn(self, cause, session, previous_turn):
        """One didChange per session per turn, in session-id order (a sync request is one turn)."""
        if previous_turn is not None and previous_turn[0] is cause and not self._may_be_async(cause):
            if session <= previous_turn[1]:
                raise Violation("revision", f"two didChanges of one turn ({cause.describe()}) for sessions "
                                            f"{previous_turn[1]} then {session}: one per session, in "
                                            f"session-id order")
        self.turn = (cause, session)

    def _may_be_async(self, request):
        if request.method != "invoke":
            return False
        params = request.params or {}
        view = self.any_view(params.get("session"))
        schema = self.schemas.get(view.type) if view else None
        command = schema.commands.get(params.get("command")) if schema else None
        return command is None or command.get("async", False)

    def _fold_write(self, view, write):
        """Folds the client's own accepted write, at the point the daemon handled it; a write
        handled before a later write of the same field, or before a snapshot, is superseded."""
        write.applied = True
        field, seq = write.field, write.request.seq
        if field not in view.observed or seq < view.snapshot_seq or seq < view.write_seq.get(field, -1):
            return
        view.state[field] = write.value
        view.write_seq[field] = seq
        view.origin[field] = f"the client's setField id {json.dumps(write.request.id)}"

    def _note_daemon_value(self, type_name, name, value):
        schema = self.schemas.get(type_name)
        if schema is None or name not in schema.writable:
            return
        values = self.daemon_values.setdefault((type_name, name), {})
        values[canon(value)] = None
        if len(values) > 512:
            del values[next(iter(values))]
