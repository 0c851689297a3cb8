import Bindery

/// Optimistic writes: `setField` and `invoke` with `expectedRevision` are refused, and change
/// nothing, when the session's revision is not the one the client expects — another client (or a
/// timer, or a command) changed it since the client last heard. Every change before the request
/// has been collected when it is handled, so the revision compared is the session's latest.
extension Server {
    /// Throws `-32023` when `params` has an `expectedRevision` that is not `session`'s revision.
    /// `data` carries the current revision and, for a field, its current value.
    func checkExpectedRevision(_ params: Params, _ session: Session, field: String? = nil,
                               command: String? = nil) throws(RPCError) {
        guard let expected = try params.optionalInt("expectedRevision"), expected != session.revision else { return }
        var data: JSONObject = ["session": .int(session.id), "revision": .int(session.revision),
                                "expectedRevision": .int(expected)]
        if let field {
            data.append("field", .string(field))
            // A writable field's value, read from the model; an unknown or read-only name has none
            // (the write would have been refused for that, too).
            data.append("value", session.fieldValues()[field] ?? .null)
        }
        if let command { data.append("command", .string(command)) }
        throw RPCError(.staleRevision, "Stale revision: session \(session.id) is at revision \(session.revision), "
                       + "not \(expected); another change came first, so nothing was "
                       + (command == nil ? "written" : "run"), data: .object(data))
    }
}
