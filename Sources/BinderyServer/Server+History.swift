import Bindery

/// The methods about a session's history: `session/undo`, `session/redo`, `session/snapshot`, and
/// reading the `restore` of `session/open`.
extension Server {
    /// `session/snapshot` {session} -> {type, schemaHash, revision, fields}: the writable fields'
    /// values, which `session/open`'s `restore` takes back (outputs are recomputed then).
    func snapshot(_ params: Params) throws(RPCError) -> JSONValue {
        let session = try session(params)
        return ["type": .string(session.type.name), "schemaHash": .string(session.type.schemaHash),
                "revision": .int(session.revision), "fields": .object(session.fieldValues())]
    }

    /// The field values of `session/open`'s `restore`, checked against `type`: a snapshot of another
    /// type is refused; one of another schema version is taken if its fields still fit (the open
    /// then refuses what does not).
    func restoredFields(_ params: Params, for type: ViewModelType) throws(RPCError) -> JSONObject? {
        guard let snapshot = try params.optionalObject("restore") else { return nil }
        guard case .object(let fields)? = snapshot["fields"] else {
            throw .invalidParams("param \"restore\" must be a snapshot: an object with \"fields\"", param: "restore")
        }
        if let other = snapshot["type"]?.stringValue, other != type.name {
            throw .snapshotMismatch(type, "it is a snapshot of \(other)")
        }
        return fields
    }

    /// `session/undo` {session} -> {revision, canUndo, canRedo}: writes back what the client's last
    /// step of writes replaced. Its didChange carries this request's id as cause. With nothing to
    /// undo, nothing changes.
    func undo(_ params: Params) throws(RPCError) -> JSONValue {
        let session = try session(params)
        session.undo()
        return historyResult(session)
    }

    /// `session/redo` {session} -> {revision, canUndo, canRedo}: writes again what the last undo took back.
    func redo(_ params: Params) throws(RPCError) -> JSONValue {
        let session = try session(params)
        session.redo()
        return historyResult(session)
    }

    private func historyResult(_ session: Session) -> JSONValue {
        store?.sessionChanged(session)
        // The revision this request produced: collect now so the response can name it.
        sendChanges()
        return ["revision": .int(session.revision), "canUndo": .bool(session.canUndo), "canRedo": .bool(session.canRedo)]
    }
}
