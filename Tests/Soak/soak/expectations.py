"""The outcomes protocol.md makes certain for each response, and how a response updates the model's
fold (the Expectations mixin of Model)."""
import json
import unicodedata

from .constants import ASYNC_DURATION_MS, BINDERY_METHODS, OPEN_ARGUMENT
from .jsonwire import canon, same, show
from .records import Schema, SessionView, Violation
from .values import codepoints, expected_for_value


class Expectations:
    """Model's half that handles responses: the outcomes protocol.md makes certain, and applying
    each response to the fold (opens, snapshots, the clock). Mixed into Model."""

    # -- responses ---------------------------------------------------------------------------------

    def _check_outcome(self, request, message):
        """The outcomes protocol.md makes certain: an error code, or success."""
        expected = self._expected(request)
        error = message.get("error")
        if request.method == "invoke" and error and error["code"] == -32800 and not (
                request.cancel_allowed or self._cancelled_by_end_of_input(request)):
            raise Violation("outcome", f"{request.describe()} answered -32800 (cancelled) though no "
                                       f"$/cancelRequest named its id exactly, its session was not closed, and "
                                       f"the input had not ended: {show(message)}", "invoke cancelled")
        if expected is None:
            return
        if request.method == "session/open" and error is not None and error["code"] == -32018:
            self._check_key_refusal(request, error)
        if expected == "ok" and error is not None:
            raise Violation("outcome", f"{request.describe()} with params {show(request.params)} must succeed "
                                       f"(protocol.md), but answered {show(error)}", f"{request.method} ok")
        if expected != "ok" and (error is None or error["code"] != expected):
            got = show(error) if error else "success " + show(message.get("result"))
            raise Violation("outcome", f"{request.describe()} with params {show(request.params)} must answer "
                                       f"{expected}, but answered {got}", f"{request.method} {expected}")

    def any_view(self, session):
        return self.views.get(session) or self.closed_views.get(session)

    def _cancelled_by_end_of_input(self, request):
        """In deterministic mode the end of input cancels the commands still running, once all
        the input has been handled: when nothing but invokes, or elements of batches (whose arrays
        wait for an async invoke of theirs, this one's or another's), awaits an answer."""
        return self.deterministic and self.input_ended and all(
            r.method == "invoke" or r.batch is not None for r in self.pending.values())

    def _check_key_refusal(self, request, error):
        """A key held only by a canonically equivalent key is not held: no -32018 for it. (A -32018
        for the type's own arguments — an element without its symbol — is no key refusal: only one
        whose data names the key is.)"""
        key = (request.params or {}).get("key")
        data = error.get("data")
        if type(key) is not str or key in self.key_holders or type(data) is not dict or "key" not in data:
            return
        twins = [k for k in self.key_holders if k != key and
                 unicodedata.normalize("NFD", k) == unicodedata.normalize("NFD", key)]
        if twins:
            holder = self.key_holders[twins[0]]
            raise Violation("key", f"{request.describe()}: no open session holds key {show(key)} (code points "
                                   f"{codepoints(key)}), yet the open was refused as if it were held: "
                                   f"{show(error)}; session {holder.id} ({holder.type}) holds {show(twins[0])} "
                                   f"(code points {codepoints(twins[0])}): keys must be compared exactly, not by "
                                   f"Unicode canonical equivalence")

    def _session_state(self, request):
        """For a method on a session: -32602, -32011, or the session's view. The session was
        open when the daemon handled the request unless a close was sent before it, or it was never
        opened (an async invoke may be answered after its session's close was)."""
        session = (request.params or {}).get("session")
        if type(session) is not int:
            return -32602
        view = self.any_view(session)
        if request.closed_before or view is None:
            return -32011
        return view

    def _expected(self, request):
        method, params = request.method, request.params or {}
        if request.shut_down or method == "<invalid>":
            return -32600
        if method == "<array params>":
            return -32602
        if method in ("exit", "$/cancelRequest", "initialized"):
            return -32600 if method != "initialized" else -32601
        if method not in BINDERY_METHODS:
            return -32601
        handler = getattr(self, "_expect_" + method.replace("/", "_"), None)
        return handler(request, params) if handler else "ok"

    def _expect_session_open(self, request, params):
        type_name, key, observe = params.get("type"), params.get("key"), params.get("observe")
        if type(type_name) is not str or (key is not None and type(key) is not str) or (
                observe is not None and (type(observe) is not list or any(type(n) is not str for n in observe))):
            return -32602
        schema = self.schemas.get(type_name)
        if schema is None:
            return -32010 if self.all_types_known else None
        # protocol.md's order: observe's names are checked before the key (even for a reopen).
        if observe is not None and not set(observe) <= schema.member_set:
            return -32012
        holder = self.key_holders.get(key) if key is not None else None
        if holder is not None:
            return "ok" if holder.type == type_name else -32018
        argument = OPEN_ARGUMENT.get(type_name)
        if argument is not None:
            args = params.get("args")
            value = args.get(argument) if type(args) is dict else None
            if type(value) is not str or self.symbols is None:
                return None if self.symbols is None else -32018
            return "ok" if value.lower() in self.symbols else -32018
        return "ok"

    def _expect_session_close(self, request, params):
        view = self._session_state(request)
        return view if type(view) is int else "ok"

    _expect_session_state = _expect_session_close

    def _expect_session_observe(self, request, params):
        view = self._session_state(request)
        if type(view) is int:
            return view
        properties = params.get("properties")
        if type(properties) is not list or any(type(p) is not str for p in properties):
            return -32602
        schema = self.schemas.get(view.type)
        if schema is None:
            return None
        return "ok" if set(properties) <= schema.member_set else -32012

    def _expect_setField(self, request, params):
        view = self._session_state(request)
        if type(view) is int:
            return view
        field = params.get("field")
        if type(field) is not str or "value" not in params:
            return -32602
        schema = self.schemas.get(view.type)
        if schema is None:
            return None
        if field not in schema.member_set:
            return -32012
        if field not in schema.writable:
            return -32013
        value = params["value"]
        if canon(value) in self.daemon_values.get((view.type, field), ()):
            return "ok"      # a value the daemon sent for this field must be accepted back
        return expected_for_value(schema.fields[field], value)

    def _expect_invoke(self, request, params):
        view = self._session_state(request)
        if type(view) is int:
            return view
        command = params.get("command")
        if type(command) is not str:
            return -32602
        schema = self.schemas.get(view.type)
        if schema is None:
            return None
        if command not in schema.commands:
            return -32015
        args = params.get("args")
        if args not in (None, {}) and "args" not in schema.commands[command]:
            return -32602
        return None     # enabled or not, failing or not: the soak does not model the view models

    def _expect_clock_advance(self, request, params):
        if request.batch is not None:
            return -32600 if self.deterministic else None
        if not self.deterministic:
            return -32019
        ms = params.get("ms")
        return "ok" if type(ms) is int and ms >= 0 else -32602

    def _expect_viewModels_describe(self, request, params):
        type_name = params.get("type")
        if type_name is None:
            return "ok"
        if type(type_name) is not str:
            return -32602
        if type_name in self.schemas:
            return "ok"
        return -32010 if self.all_types_known else None

    def _apply_response(self, request, message):
        method, params = request.method, request.params or {}
        result = message.get("result")
        if method == "setField":
            write = self.writes.pop(request.key, None)
            if "error" in message or write is None:
                if write is not None and write.applied:
                    raise Violation("outcome", f"{request.describe()} failed ({show(message['error'])}) after a "
                                               f"didChange named it as its cause")
                return
            view = self.views.get(write.session)
            if view is not None:
                if not write.applied:
                    self._fold_write(view, write)
                if request.batch is None:
                    self._check_revision_result(request, result, view)
            return
        if "error" in message:
            error = message["error"]
            if method == "session/open" and error["code"] == -32018 and type(error.get("data")) is dict:
                known = error["data"].get("known")
                if params.get("type") in OPEN_ARGUMENT and type(known) is list:
                    self.symbols = {str(s).lower() for s in known}
            return
        if method == "session/open":
            self._on_opened(request, params, result)
        elif method == "session/close":
            if result is not None:
                raise Violation("outcome", f"{request.describe()} must answer null, not {show(result)}")
            view = self.views.pop(params["session"], None)
            if view is None:
                return
            self.closed_views[view.id] = view
            view.state = None           # (memory: only its type is needed from now on)
            for key in view.keys:
                if self.key_holders.get(key) is view:
                    del self.key_holders[key]
        elif method in ("session/state", "session/observe"):
            view = self.views.get(params.get("session"))
            self._require(result, {"revision": int, "state": dict}, request)
            members = list(params["properties"]) if method == "session/observe" else None
            self._snapshot(view, request, result["revision"], result["state"], members)
        elif method in ("viewModels/describe", "initialize"):
            described = result.get("viewModels") if type(result) is dict else None
            if type(described) is list:
                for description in described:
                    self.schemas[description["type"]] = Schema(description)
                if method == "initialize" or "type" not in params:
                    self.all_types_known = True
        elif method == "clock/advance":
            self._on_clock_advanced(request, result)

    def _require(self, result, shape, request):
        if type(result) is not dict or any(type(result.get(k)) is not t for k, t in shape.items()):
            raise Violation("outcome", f"{request.describe()}: the result must have {list(shape)}: {show(result)}")

    def _check_revision_result(self, request, result, view):
        """setField answers the session's revision once the changes it caused have been sent."""
        self._require(result, {"revision": int}, request)
        if result["revision"] != view.revision:
            raise Violation("revision", f"{request.describe()} answered revision {result['revision']}, but the "
                                        f"last didChange of session {view.id} before it was revision {view.revision}")

    def _on_opened(self, request, params, result):
        self._require(result, {"session": int, "revision": int, "state": dict}, request)
        session, key = result["session"], params.get("key")
        if ("reopened" in result) != (key is not None) or ("reopened" in result and type(result["reopened"]) is not bool):
            raise Violation("outcome", f"{request.describe()}: `reopened` comes exactly when a key is given: {show(result)}")
        holder = self.key_holders.get(key) if key is not None else None
        if holder is not None:
            if not result["reopened"] or session != holder.id:
                raise Violation("key", f"{request.describe()}: key {show(key)} is held by session {holder.id}, so the "
                                       f"open must return it with reopened: true; got session {session}, "
                                       f"reopened: {result['reopened']}")
            return self._snapshot(holder, request, result["revision"], result["state"], None)
        if result.get("reopened"):
            other = self.views.get(session)
            held = sorted(other.keys) if other else []
            raise Violation("key", f"{request.describe()}: no open session holds key {show(key)} "
                                   f"(code points {codepoints(key)}), yet it reopened session {session}, which holds "
                                   f"{', '.join(f'{show(k)} (code points {codepoints(k)})' for k in held) or 'no key'}: "
                                   f"keys must be compared exactly, not by Unicode canonical equivalence")
        if session in self.views or session in self.closed_views or session <= 0:
            raise Violation("outcome", f"{request.describe()} returned session {session}, an id already used")
        if result["revision"] != 0:
            raise Violation("revision", f"{request.describe()}: a new session starts at revision 0, not {result['revision']}")
        schema = self.schemas.get(params["type"])
        observed = params.get("observe")
        expected = set(observed) if observed is not None else schema.member_set if schema else set(result["state"])
        if set(result["state"]) != expected:
            raise Violation("members", f"{request.describe()}: the state must have exactly the observed members "
                                       f"{sorted(expected)}, not {sorted(result['state'])}")
        view = SessionView(session, params["type"], result["state"], expected, request.seq)
        self.views[session] = view
        for name, value in result["state"].items():
            view.origin[name] = f"session/open id {json.dumps(request.id)}"
            self._note_daemon_value(view.type, name, value)
        if key is not None:
            self.key_holders[key] = view
            view.keys.add(key)

    def _snapshot(self, view, request, revision, state, members):
        """Check 4: at a session/state (observe, reopen) response the fold must equal the state
        returned, at the same revision; then the fold restarts from it."""
        if view is None:
            return
        if revision != view.revision:
            raise Violation("revision", f"{request.describe()} answered revision {revision} for session "
                                        f"{view.id}, but the client has seen its didChanges up to revision {view.revision}")
        unresolved = {w.field for w in self.writes.values()
                      if w.session == view.id and not w.applied and w.request.seq < request.seq}
        compared = set(view.state) & set(state) if members is not None else set(view.state) | set(state)
        if members is not None and set(state) != set(members):
            raise Violation("members", f"{request.describe()}: the state must have exactly the members asked for "
                                       f"{sorted(set(members))}, not {sorted(state)}")
        if members is None and set(state) != view.observed:
            raise Violation("members", f"{request.describe()}: the state must have exactly the observed members "
                                       f"{sorted(view.observed)}, not {sorted(state)}")
        differences = [name for name in sorted(compared - unresolved)
                       if name not in view.state or name not in state or not same(view.state[name], state[name])]
        if differences:
            lines = [f"  {name}: the client's fold has {show(view.state.get(name))} (from "
                     f"{view.origin.get(name, '?')}), the daemon says {show(state.get(name))}"
                     for name in differences]
            raise Violation("fold", f"session {view.id} ({view.type}) at revision {revision}: the client's fold "
                                    f"differs from what {request.describe()} returned:\n" + "\n".join(lines))
        view.state = dict(state)
        view.snapshot_seq = request.seq
        for name, value in state.items():
            view.origin[name] = f"{request.method} id {json.dumps(request.id)}"
            self._note_daemon_value(view.type, name, value)
        if members is not None:
            view.observed = set(members)

    def _on_clock_advanced(self, request, result):
        """Check 5: the commands that fell due answer before clock/advance does."""
        self._require(result, {"now": int}, request)
        if result["now"] != request.clock:
            raise Violation("outcome", f"{request.describe()} answered now = {result['now']}, but the clock "
                                       f"was advanced to {request.clock} ms in all")
        for invoke in list(self.async_running.values()):
            params = invoke.params or {}
            view = self.any_view(params.get("session"))
            duration = ASYNC_DURATION_MS.get((view.type if view else None, params.get("command")))
            if duration is not None and invoke.seq < request.seq and invoke.clock + duration <= request.clock:
                raise Violation("order", f"{request.describe()} answered (now {request.clock} ms) before "
                                         f"{invoke.describe()}, started at {invoke.clock} ms, which fell due at "
                                         f"{invoke.clock + duration} ms")

    # -- the end -----------------------------------------------------------------------------------

    def check_all_answered(self):
        if self.pending:
            unanswered = sorted((r.seq, r.describe()) for r in self.pending.values())
            raise Violation("response", f"{len(self.pending)} request(s) never answered, e.g. "
                                        f"{', '.join(d for _, d in unanswered[:5])}")
        if self.batches:
            raise Violation("batch", f"{len(self.batches)} batch(es) never answered")
        if self.expected_nulls:
            raise Violation("response", f"{self.expected_nulls} invalid message(s) never answered with id null")
