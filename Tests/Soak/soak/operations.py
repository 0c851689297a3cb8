"""The generator's operations: session/open, reopen, close, state, observe, setField (valid, wrong,
write-back), invoke, login, $/cancelRequest, clock/advance, viewModels/describe, invalid messages
and garbage bytes (the Operations mixin of Traffic)."""
from .constants import BINDERY_METHODS, FAILING_FIRST_NAME, OPEN_ARGUMENT
from .parts import GeneratedSession, Part, Raw
from .values import equal_but_different, equivalent_variant


class Operations:
    """Traffic's operations, one method each (Traffic.operations weighs them). Mixed into Traffic."""

    # -- operations: each returns a list of Parts, or None when it does not apply -------------------

    def op_open(self, context):
        rng = self.rng
        types = sorted(self.schemas)
        type_name = rng.choice(types) if rng.random() > 0.04 else rng.choice(["emial", "Email", ""])
        params = {"type": type_name}
        if type_name in OPEN_ARGUMENT:
            symbol = rng.choice(self.symbols) if rng.random() < 0.9 else rng.choice(["Xx", "", "Uuo"])
            params["args"] = {"symbol": rng.choice([symbol, symbol.lower(), symbol.upper()])}
        elif rng.random() < 0.05:
            params["args"] = {"ignored": True}
        schema = self.schemas.get(type_name)
        if schema and rng.random() < 0.25:
            observe = rng.sample(schema.members, rng.randint(1, len(schema.members)))
            if rng.random() < 0.1:
                observe.append("noSuchMember")
            params["observe"] = observe
        key = None
        if rng.random() < 0.3:
            key = self.new_key()
            params["key"] = key
        message = self.request("session/open", params)
        self.link.watch(message["id"])
        if schema is not None:
            session = GeneratedSession(message["id"], type_name, key)
            self.sessions.append(session)
            if key is not None:
                self.keys[key] = session
        # In a batch, after every element that may change a session: a change to the new session
        # (a saved movie reaching a new movieList) would come before the array that says its id.
        return [Part(message, "tail")]

    def new_key(self):
        rng = self.rng
        if rng.random() < 0.7:
            base = rng.choice(["form", "bar", "list", ""])
        else:   # keys with canonically equivalent twins, which must stay different keys
            base = rng.choice(["caf\u00e9", "cafe\u0301", "\u212a", "K", "\u00c5ngstr\u00f6m", "A\u030angstro\u0308m",
                               "\u1e69"])
        key = base + (f"-{rng.randint(0, 9)}" if rng.random() < 0.7 else "")
        return key if key not in self.keys else key + f"-{self.counter}"

    def op_reopen(self, context):
        """Opens with a key a session holds: the same session back (reopened), a refusal for
        another type, or, for a canonically equivalent key, a new session."""
        if not context.allow_wait:
            return None
        held = [s for s in self.keys.values() if not s.closed]
        if not held:
            return None
        holder = self.rng.choice(sorted(held, key=lambda s: s.open_id if isinstance(s.open_id, int) else 0))
        if self.building is not None and holder.open_id in self.building or self.resolve(holder) is None:
            return None
        roll = self.rng.random()
        variant = equivalent_variant(holder.key, self.rng)
        if roll < 0.3 and variant is not None and variant not in self.keys:
            params = {"type": holder.type, "key": variant}
            if holder.type in OPEN_ARGUMENT:
                params["args"] = {"symbol": self.symbols[0]}
            message = self.request("session/open", params)
            self.link.watch(message["id"])
            session = GeneratedSession(message["id"], holder.type, variant)
            self.sessions.append(session)
            self.keys[variant] = session
            return [Part(message, "tail")]
        if roll < 0.4:
            other = self.rng.choice([t for t in sorted(self.schemas) if t != holder.type] or [holder.type])
            return [Part(self.request("session/open", {"type": other, "key": holder.key}))]
        message = self.request("session/open", {"type": holder.type, "key": holder.key})
        self.link.watch(message["id"])
        self.replace_snapshot(holder, message["id"])
        return [Part(message, "tail")]

    def replace_snapshot(self, session, id_value):
        self.link.forget(session.snapshot_id)     # (the session is resolved: its open answer is used)
        session.snapshot_id = id_value

    def op_close(self, context):
        if self.rng.random() < 0.1:
            return [Part(self.request("session/close", {"session": self.unknown_session()}))]
        session = self.pick_session()
        if session is None:
            return None
        return [Part(self.close(session))]

    def close(self, session):
        session.closed = True
        self.sessions.remove(session)
        self.closed_ids.append(session.id)
        self.link.forget(session.snapshot_id)
        if session.key is not None and self.keys.get(session.key) is session:
            del self.keys[session.key]
        return self.request("session/close", {"session": session.id})

    def op_state(self, context):
        if self.rng.random() < 0.05:
            return [Part(self.request("session/state", {"session": self.unknown_session()}))]
        session = self.pick_session()
        if session is None:
            return None
        message = self.request("session/state", {"session": session.id})
        self.link.watch(message["id"])
        self.replace_snapshot(session, message["id"])
        return [Part(message, "tail")]

    def op_observe(self, context):
        session = self.pick_session()
        if session is None:
            return None
        members = self.schema_of(session).members
        properties = self.rng.sample(members, self.rng.randint(0, len(members)))
        if self.rng.random() < 0.1:
            properties.append(self.rng.choice(["nope", "login.enabled.x", ""]))
            return [Part(self.request("session/observe", {"session": session.id, "properties": properties}))]
        message = self.request("session/observe", {"session": session.id, "properties": properties})
        self.link.watch(message["id"])
        self.replace_snapshot(session, message["id"])
        return [Part(message, "tail")]

    def writable_session(self):
        return self.pick_session(lambda s: bool(self.schemas[s.type].writable))

    def set_field(self, session, field, value):
        session.written[field] = value
        return self.request("setField", {"session": session.id, "field": field, "value": value})

    def op_set(self, context):
        session = self.writable_session()
        if session is None:
            return None
        schema = self.schema_of(session)
        field = self.rng.choice(schema.writable)
        spec, roll = schema.fields[field], self.rng.random()
        last = session.written.get(field)
        variant = equal_but_different(last, self.rng) if roll < 0.2 and last is not None else None
        if variant is not None:
            value = variant                                # equal to Swift, different to JSON
        elif roll < 0.25 and last is not None:
            value = last                                   # the same value again
        elif roll < 0.55:
            value = self.values.edge(spec)
        else:
            value = self.values.valid(spec)
        return [Part(self.set_field(session, field, value))]

    def op_set_wrong(self, context):
        rng = self.rng
        session = self.pick_session()
        if session is None:
            return None
        schema, roll = self.schema_of(session), rng.random()
        if roll < 0.45 and schema.writable:
            field = rng.choice(schema.writable)
            return [Part(self.set_field(session, field, self.values.wrong(schema.fields[field])))]
        if roll < 0.6:
            read_only = [m for m in schema.members if m not in schema.writable]
            if read_only:
                return [Part(self.set_field(session, rng.choice(read_only), True))]
        if roll < 0.7:
            return [Part(self.set_field(session, rng.choice(["nope", "Email", "e\u0301mail", ""]), "x"))]
        if roll < 0.8 and schema.writable:
            return [Part(self.request("setField", {"session": session.id, "field": rng.choice(schema.writable)}))]
        if roll < 0.9:
            return [Part(self.request("setField", {"session": self.unknown_session(), "field": "x", "value": 1}))]
        return [Part(self.request("setField", {"session": str(session.id), "field": "x", "value": 1}))]

    def op_write_back(self, context):
        """Writes back a value the daemon sent for a field: it must always be accepted."""
        session = self.writable_session()
        if session is None:
            return None
        state = session.seen_state
        latest_unsent = self.building is not None and session.snapshot_id in self.building
        if (state is None or self.rng.random() < 0.3) and not latest_unsent:
            answer = self.link.response(session.snapshot_id)
            state = ((answer or {}).get("result") or {}).get("state")
            if isinstance(state, dict):
                session.seen_state = state
        if not isinstance(state, dict):
            return None
        fields = [f for f in self.schema_of(session).writable if f in state]
        if not fields:
            return None
        field = self.rng.choice(fields)
        return [Part(self.set_field(session, field, state[field]))]

    def op_invoke(self, context):
        rng = self.rng
        session = self.pick_session()
        if session is None:
            return None
        schema = self.schema_of(session)
        sync = [c for c, spec in schema.commands.items() if not spec.get("async")]
        if not sync or rng.random() < 0.2:
            command = rng.choice(["nope", "Save", "login"] if "login" not in schema.commands else ["nope"])
            return [Part(self.request("invoke", {"session": session.id, "command": command}))]
        command = rng.choice(sync)
        params = {"session": session.id, "command": command}
        if rng.random() < 0.1:
            params["args"] = rng.choice([{"x": 1}, [1], "x"])
        parts = []
        strings = [f for f in schema.writable if schema.fields[f].get("type") == "string"]
        if strings and rng.random() < 0.5:   # make a command like addMovie.save enabled first
            parts.append(Part(self.set_field(session, rng.choice(strings), rng.choice(["Alien", "Heat", "x"]))))
        parts.append(Part(self.request("invoke", params)))
        return parts

    def async_commands(self, session):
        return [c for c, spec in self.schemas[session.type].commands.items() if spec.get("async")]

    def op_login(self, context):
        """An async command, after the writes that enable it (login: both names non-empty)."""
        if not context.allow_async:
            return None
        session = self.pick_session(lambda s: bool(self.async_commands(s)))
        if session is None:
            return None
        rng, schema = self.rng, self.schema_of(session)
        parts = []
        for field in schema.writable:
            if schema.fields[field].get("type") == "string" and rng.random() < 0.7:
                name = FAILING_FIRST_NAME if field == "firstName" and rng.random() < 0.15 else \
                    rng.choice(["Ada", "Grace", "Jos\u00e9", "\u212aarl", "Linus"])
                parts.append(Part(self.set_field(session, field, name)))
        message = self.request("invoke", {"session": session.id, "command": rng.choice(self.async_commands(session))})
        self.logins.append((message["id"], session))
        parts.append(Part(message, "async"))
        if context.in_batch and rng.random() < 0.4:
            # Cancelled, or its session closed, inside the same batch.
            if rng.random() < 0.6:
                parts.append(Part(self.notification("$/cancelRequest", {"id": message["id"]})))
            else:
                parts.append(Part(self.close(session)))
        return parts

    def op_cancel(self, context):
        rng, roll = self.rng, self.rng.random()
        if roll < 0.65 and self.logins:
            target = rng.choice(list(self.logins))[0]
        elif roll < 0.75 and self.logins and any(isinstance(i, str) for i, _ in self.logins):
            named = rng.choice([i for i, _ in self.logins if isinstance(i, str)])
            target = equivalent_variant(named, rng) or named + "x"     # must NOT cancel `named`
        elif roll < 0.9 and self.recent_ids:
            target = rng.choice(list(self.recent_ids))                # answered already, or not async
        else:
            target = rng.choice([10 ** 9, "unknown", -1])
        return [Part(self.notification("$/cancelRequest", {"id": target}))]

    def op_clock(self, context):
        rng = self.rng
        ms = rng.choice([0, 1, 100, 499, 1000, 1499, 1500, 1501, 2000, 3000, rng.randint(0, 4000)])
        if context.in_batch:        # clock/advance may not be part of a batch: -32600
            return [Part(self.request("clock/advance", {"ms": ms}))] if rng.random() < 0.3 else None
        if not self.deterministic and rng.random() < 0.8:
            return None             # live mode: an occasional -32019 is enough
        if rng.random() < 0.1:
            return [Part(self.request("clock/advance", {"ms": rng.choice([-1, 1.5, "1"])}), "top")]
        return [Part(self.request("clock/advance", {"ms": ms}), "top")]

    def op_describe(self, context):
        rng, roll = self.rng, self.rng.random()
        if roll < 0.3:
            return [Part(self.request("viewModels/describe"))]
        if roll < 0.8:
            return [Part(self.request("viewModels/describe", {"type": rng.choice(sorted(self.schemas))}))]
        if roll < 0.9:
            return [Part(self.request("viewModels/describe", {"type": "nope"}))]
        return [Part({"jsonrpc": "2.0", "id": None, "method": "viewModels/describe"})]   # answered with id null

    def op_invalid(self, context):
        """Messages that are JSON but not valid requests: each has a documented answer."""
        rng = self.rng
        session = rng.choice([s.id for s in self.open_sessions() if s.id is not None] or [1])
        kinds = [
            lambda: self.request(rng.choice(["no/such/method", "sessionOpen", "session/Open", "$/other"]), {}),
            lambda: self.notification(rng.choice(["no/such/notification", "$/setTrace", "initialized"]), {}),
            lambda: self.request(rng.choice(sorted(BINDERY_METHODS - {"shutdown", "initialize"})), [session]),
            lambda: self.request("session/state", "params as a string"),
            lambda: {**self.request("session/state", {"session": session}), "jsonrpc": "1.0"},
            lambda: {"jsonrpc": "2.0", "id": rng.choice([1.5, True, {"a": 1}, [1]]), "method": "session/state",
                     "params": {"session": session}},
            lambda: {"jsonrpc": "2.0", "id": f"client-response-{self.counter}", "result": {"ignored": True}},
            lambda: self.request("exit"),
            lambda: self.request("session/open", {"type": 7}),
            lambda: self.request("session/open", {"type": "email", "key": 7}),
            lambda: self.request("session/state", {}),
            lambda: self.request("invoke", {"session": session}),
            lambda: {"jsonrpc": "2.0", "id": self.new_id()},
        ]
        if context.in_batch:
            kinds.append(lambda: rng.choice([1, "x", None, [], True]))
        return [Part(rng.choice(kinds)())]

    def op_garbage(self, context):
        """Bytes that are not a JSON-RPC message: each answered by -32700, id null."""
        if context.in_batch:
            return None
        rng = self.rng
        if self.framing == "content-length" and rng.random() < 0.3:
            data = rng.choice([b"garbage line\r\n", b"Content-Length: abc\r\n\r\n", b"Content-Type: x\r\n\r\n",
                               b"Content-Length: -5\r\n\r\n"])
            return [Part(Raw(data, stream=True), "top")]
        body = rng.choice([b"garbage", b"{\"jsonrpc\":", b"\xff\xfe\xfd", b"{\"a\":\"\\ud800\"}", b"NaN",
                           b"{\"x\":Infinity}", b"[" * 600 + b"]" * 600, b"\xc3\x28", b"{'single':1}", b"[]",
                           b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"} trailing"])
        return [Part(Raw(body), "top")]
