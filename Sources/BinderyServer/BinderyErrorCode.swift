import Bindery

/// Bindery's own error codes, in the range JSON-RPC leaves to implementations (-32000 to -32099).
/// -32001 to -32009 are skipped because LSP uses -32002 for "server not initialized".
extension ErrorCode {
    /// -32010: `session/open` or `viewModels/describe` named a type that is not registered. `data: {type, known}`.
    public static let unknownType = ErrorCode(-32010)
    /// -32011: a session id never opened, or closed. `data: {session}`.
    public static let unknownSession = ErrorCode(-32011)
    /// -32012: `setField` or `observe` named a member the type does not have. `data: {session?, field, known}`.
    public static let unknownField = ErrorCode(-32012)
    /// -32013: `setField` on an output or a command's state member. `data: {session, field}`.
    public static let readOnlyField = ErrorCode(-32013)
    /// -32014: `setField` with a value that does not fit the field's type. `data: {session, field, expected, found}`.
    public static let wrongValueType = ErrorCode(-32014)
    /// -32015: `invoke` named a command the type does not have. `data: {session, command, known}`.
    public static let unknownCommand = ErrorCode(-32015)
    /// -32016: `invoke` while the command's enabled condition is false. `data: {session, command}`.
    public static let commandDisabled = ErrorCode(-32016)
    /// -32017: the command threw. `data: {session, command, detail?}` (detail: a `CommandError`'s).
    public static let commandFailed = ErrorCode(-32017)
    /// -32018: the type's factory refused `session/open`'s args, or the key is held by another type.
    public static let openFailed = ErrorCode(-32018)
    /// -32019: `clock/advance` on a daemon started without `--deterministic`. `data: {method}`.
    public static let needsDeterministicMode = ErrorCode(-32019)
    /// -32020: `--max-sessions` or `--max-in-flight` reached. `data: {limit, value}`.
    public static let limitReached = ErrorCode(-32020)
    /// -32021: `session/open` gave a `schemaHash` that is not the type's: a client generated from
    /// another version of it. `data: {type, schemaHash, expected}`.
    public static let schemaMismatch = ErrorCode(-32021)
    /// -32022: `session/open`'s `restore` does not fit the type: a snapshot of another type, or with
    /// a field the type no longer has or a value it no longer takes. `data: {type, schemaHash, reason}`.
    public static let snapshotMismatch = ErrorCode(-32022)
    /// -32023: `setField` or `invoke` gave an `expectedRevision` the session has moved on from
    /// (another client changed it): nothing was written or run. `data: {session, revision,
    /// expectedRevision, field, value}` (`command` instead of `field` and `value` for `invoke`).
    public static let staleRevision = ErrorCode(-32023)
}

extension RPCError {
    static func unknownType(_ name: String, known: [String]) -> RPCError {
        RPCError(.unknownType, "Unknown view model type \"\(name)\"; known types: \(known.joined(separator: ", "))",
                 data: ["type": .string(name), "known": .array(known.map(JSONValue.string))])
    }

    static func unknownSession(_ id: Int) -> RPCError {
        RPCError(.unknownSession, "Unknown session \(id): never opened, or closed", data: ["session": .int(id)])
    }

    static func openFailed(type: String, _ error: any Error) -> RPCError {
        if let error = error as? OpenError {
            return RPCError(.openFailed, "Could not open \(type): \(error.message)", data: error.data)
        }
        return RPCError(.openFailed, "Could not open \(type): \(error)")
    }

    /// The documented error for a refused session operation, naming the session and the offending name.
    @MainActor static func session(_ session: Session, _ error: SessionError) -> RPCError {
        let id = JSONValue.int(session.id)
        let type = session.type.name
        switch error {
        case .unknownField(let name, let known):
            return RPCError(.unknownField,
                            "Unknown field \"\(name)\" in \(type); known: \(known.joined(separator: ", "))",
                            data: ["session": id, "field": .string(name), "known": .array(known.map(JSONValue.string))])
        case .readOnlyField(let name):
            return RPCError(.readOnlyField, "Field \"\(name)\" of \(type) is read-only",
                            data: ["session": id, "field": .string(name)])
        case .wrongValueType(let field, let valueError):
            return RPCError(.wrongValueType, "Wrong value type for field \"\(field)\": \(valueError)",
                            data: ["session": id, "field": .string(field), "expected": .string(valueError.expected),
                                   "found": .string(valueError.found)])
        case .unknownCommand(let name, let known):
            let list = known.isEmpty ? "\(type) has no commands" : "known: \(known.joined(separator: ", "))"
            return RPCError(.unknownCommand, "Unknown command \"\(name)\" in \(type); \(list)",
                            data: ["session": id, "command": .string(name), "known": .array(known.map(JSONValue.string))])
        case .commandDisabled(let name):
            return RPCError(.commandDisabled, "Command \"\(name)\" of \(type) is disabled",
                            data: ["session": id, "command": .string(name)])
        case .invalidArguments(let command, let valueError):
            return RPCError(.invalidParams, "Invalid params: args of command \"\(command)\": \(valueError)",
                            data: ["session": id, "command": .string(command), "expected": .string(valueError.expected),
                                   "found": .string(valueError.found)])
        }
    }

    @MainActor static func commandFailed(_ session: Session, command: String, _ error: any Error) -> RPCError {
        var data: JSONObject = ["session": .int(session.id), "command": .string(command)]
        let message: String
        if let error = error as? CommandError {
            message = error.message
            if let detail = error.detail { data.append("detail", detail) }
        } else {
            message = ErrorMessage.of(error)
            let details = ErrorMessage.details(of: error)
            if !details.isEmpty {
                data.append("detail", .object(JSONObject(details.map { (key: $0.name, value: JSONValue.string($0.text)) })))
            }
        }
        return RPCError(.commandFailed, "Command \"\(command)\" of \(session.type.name) failed: \(message)",
                        data: .object(data))
    }

    static func needsDeterministicMode(_ method: String) -> RPCError {
        RPCError(.needsDeterministicMode, "\(method) needs a daemon started with --deterministic",
                 data: ["method": .string(method)])
    }

    static func limitReached(_ what: String, flag: String, value: Int) -> RPCError {
        RPCError(.limitReached, "Limit reached: \(what) (\(flag) \(value))",
                 data: ["limit": .string(flag), "value": .int(value)])
    }

    @MainActor static func schemaMismatch(_ type: ViewModelType, expected: String) -> RPCError {
        RPCError(.schemaMismatch, "Schema mismatch: the daemon's \(type.name) differs from the client generated for it "
                 + "(its schemaHash is \(type.schemaHash), the client expects \(expected)); regenerate the client",
                 data: ["type": .string(type.name), "schemaHash": .string(type.schemaHash), "expected": .string(expected)])
    }

    @MainActor static func snapshotMismatch(_ type: ViewModelType, _ reason: String) -> RPCError {
        RPCError(.snapshotMismatch, "Snapshot does not fit \(type.name): \(reason)",
                 data: ["type": .string(type.name), "schemaHash": .string(type.schemaHash), "reason": .string(reason)])
    }

    static func cancelled(_ why: String) -> RPCError {
        RPCError(.requestCancelled, "Request cancelled: \(why)")
    }
}
