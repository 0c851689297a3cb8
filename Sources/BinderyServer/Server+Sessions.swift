import Bindery

extension Server {
    /// `session/open` {type, args?, observe?, key?, schemaHash?} -> {session, revision, state, reopened?}
    func openSession(_ params: Params) throws(RPCError) -> JSONValue {
        let typeName = try params.string("type")
        let key = try params.optionalString("key")
        let arguments = try params.optionalObject("args") ?? JSONObject()
        let observe = try params.optionalStringArray("observe")
        guard let type = table.registry.type(named: typeName) else {
            throw .unknownType(typeName, known: table.registry.names)
        }
        if let expected = try params.optionalString("schemaHash"), expected != type.schemaHash {
            throw .schemaMismatch(type, expected: expected)
        }
        var restore = try restoredFields(params, for: type)
        var restoringStored = false
        if restore == nil, let key, table.session(forKey: key) == nil, let stored = store?.load(key: key) {
            guard stored.type == typeName else {
                throw RPCError(.openFailed, "Could not open \(typeName): key \"\(key)\" is held by a stored session of type \(stored.type)",
                               data: ["key": .string(key), "type": .string(stored.type)])
            }
            restore = stored.fields
            restoringStored = true
        }
        if let observe, let unknown = observe.first(where: { type.memberIndex(named: $0) == nil }) {
            throw RPCError(.unknownField, "Unknown field \"\(unknown)\" in observe of \(typeName); known: "
                           + type.memberNames.joined(separator: ", "),
                           data: ["field": .string(unknown), "known": .array(type.memberNames.map(JSONValue.string))])
        }
        let session: Session
        let sessionsBefore = table.count
        let limit = options.limits.sessions
        if sessionsBefore >= limit, key.map({ table.session(forKey: $0) == nil }) ?? true {
            throw .limitReached("\(limit) sessions are open", flag: "--max-sessions", value: limit)
        }
        do {
            do {
                session = try table.open(type, arguments: arguments, observing: observe, key: key, restoring: restore)
            } catch let error as SessionError where restoringStored {
                // The type changed since its session was stored: keep the file aside, open afresh.
                store?.discard(key: key ?? "", because: "it no longer fits \(typeName): \(Self.describe(error))")
                restoringStored = false
                session = try table.open(type, arguments: arguments, observing: observe, key: key)
            }
        } catch let error as SessionError {
            throw .snapshotMismatch(type, Self.describe(error))
        } catch let error as SessionTable.KeyInUse {
            throw RPCError(.openFailed, "Could not open \(typeName): key \"\(error.key)\" is held by a session of type \(error.type)",
                           data: ["key": .string(error.key), "type": .string(error.type)])
        } catch {
            throw .openFailed(type: typeName, error)
        }
        // Shared: this client is attached to the session, and starts from what it observes of it.
        let state = hub.isShared ? hub.attach(self, to: session, observing: observe) : session.state()
        var result: JSONObject = ["session": .int(session.id), "revision": .int(session.revision),
                                  "state": .object(state)]
        // Child view models: all of them when this client joins a session others had open.
        var (children, _) = session.takeChildrenNews()
        if hub.isShared {
            if children.isEmpty { children = session.descendantStates() }
            for (id, _) in children.members { if let child = Int(id) { hub.attachChild(self, to: child) } }
        }
        if !children.isEmpty { result.append("children", .object(children)) }
        if key != nil { result.append("reopened", .bool(table.count == sessionsBefore)) }
        if restoringStored, table.count > sessionsBefore { result.append("restored", true) }
        addingDisplay(to: &result, of: session)
        return .object(result)
    }

    /// What a snapshot's field did wrong, in words.
    static func describe(_ error: SessionError) -> String {
        switch error {
        case .unknownField(let name, _): "it has a field \"\(name)\" the type does not have"
        case .readOnlyField(let name): "\"\(name)\" is not a writable field"
        case .wrongValueType(let field, let valueError): "field \"\(field)\": \(valueError)"
        default: "\(error)"
        }
    }

    /// `session/close` {session} -> null. Stops the session's running commands.
    func closeSession(_ params: Params) throws(RPCError) -> JSONValue {
        let id = try params.int("session")
        let session = table.session(id)
        if let parent = session?.parent {
            throw .invalidParams("session \(id) is a child view model of session \(parent.id): it closes with its parent")
        }
        if hub.isShared {
            // Shared: the client is detached; the session closes when no client is left.
            guard session != nil, attached.contains(id) else { throw .unknownSession(id) }
            guard hub.detach(self, from: id) else { return .null }
        }
        guard table.close(id) else { throw .unknownSession(id) }
        if let session { store?.sessionClosed(session) }
        if let session, session.hasRunningCommands {
            waitForCancelledCommands { !session.hasRunningCommands }
        }
        return .null
    }

    /// `session/state` {session} -> {revision, state, children?}: everything observed, to
    /// resynchronise; `children`: every child session under it, with its state.
    func sessionState(_ params: Params) throws(RPCError) -> JSONValue {
        let session = try session(params)
        var result: JSONObject = ["revision": .int(session.revision), "state": .object(state(of: session))]
        let children = session.descendantStates()
        if !children.isEmpty { result.append("children", .object(children)) }
        addingDisplay(to: &result, of: session)
        return .object(result)
    }

    /// What this client observes of `session`, now.
    func state(of session: Session) -> JSONObject {
        guard hub.isShared else { return session.state() }
        return SessionHub.filter(session.state(), to: hub.observed(by: self, in: session.id))
    }

    /// `session/observe` {session, properties} -> {revision, state}: push only these from now on.
    func observe(_ params: Params) throws(RPCError) -> JSONValue {
        let session = try session(params)
        let names = try params.stringArray("properties")
        if let unknown = names.first(where: { session.type.memberIndex(named: $0) == nil }) {
            throw .session(session, .unknownField(unknown, known: session.type.memberNames))
        }
        let state = hub.isShared ? hub.observe(self, session, names) : session.observe(names)
        var result: JSONObject = ["revision": .int(session.revision), "state": .object(state)]
        addingDisplay(to: &result, of: session)
        return .object(result)
    }

    /// `setField` {session, field, value} -> {revision}
    /// `setField` {session, field, value | text, expectedRevision?} -> {revision}: the revision this write produced.
    func setField(_ params: Params) throws(RPCError) -> Int {
        let session = try session(params)
        let field = try params.string("field")
        let (value, text) = try fieldValue(params, session, field: field)
        try checkExpectedRevision(params, session, field: field)
        do {
            // True when the value is not echoed to this client: the others must be told it.
            if try session.setField(field, to: value), hub.isShared {
                hub.recordWrite(session, field: field, value: value, by: self)
            }
        } catch {
            if let text, let refused = Self.refusedText(text, error, in: session) { throw refused }
            throw .session(session, error)
        }
        store?.sessionChanged(session)
        // The revision this write produced: collect now so the response can name it.
        sendChanges()
        return session.revision
    }

    func session(_ params: Params) throws(RPCError) -> Session {
        let id = try params.int("session")
        // Shared: a client names only the sessions it is attached to; another's is unknown to it.
        guard let session = table.session(id), !hub.isShared || attached.contains(id) else {
            throw .unknownSession(id)
        }
        return session
    }
}
