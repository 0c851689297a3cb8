import JSONRPC

/// Child view models as the client sees them: each is a session of its own, opened by the daemon
/// (in `children`) and closed by it (in `detached`), shown in its parent's value as
/// `{"session": id}`. Their ids are put in the client's terms wherever they appear, and each gets
/// a ``SessionRecord`` like a session the client opened, so that requests, `didChange`s and a
/// reload find it (what the client was told of it is the mirror's, like any session's). Main
/// actor, like all of ``Proxy``.
extension Proxy {
    /// The schema of a session's type in the daemon serving the client.
    func schema(of type: String) -> Schema? { daemon?.schema(of: type) }

    /// A state (or `changes`) of a session of `type` with its child references in the client's terms.
    func clientState(_ state: JSONObject, type: String) -> JSONObject {
        ChildReferences.mapping(state: state, schema: schema(of: type), clientSessionID)
    }

    /// A message's `children` (`{"<daemon id>": {type, revision, state}}`) in the client's terms,
    /// each child recorded as a session (one already known keeps its record: `session/state`
    /// lists every child again). The mirror takes them from the message as the client gets it.
    func adopt(_ children: JSONValue?) -> JSONObject? {
        guard let children = children?.objectValue else { return nil }
        var adopted = JSONObject()
        for entry in children.members {
            guard let daemonID = Int(entry.key), let id = clientSessionID(daemonID),
                  case .object(var child) = entry.value else { continue }
            let type = child["type"]?.stringValue ?? ""
            var revision = child["revision"]?.intValue ?? 0
            if let record = sessions[id] {
                revision += record.offset
            } else {
                sessions[id] = SessionRecord(id: id, type: type, key: nil, args: nil, observe: nil, daemonID: daemonID, offset: 0)
                byDaemonID[daemonID] = id
                nextSessionID = max(nextSessionID, id + 1)
            }
            child["state"] = .object(clientState(child["state"]?.objectValue ?? JSONObject(), type: type))
            child["revision"] = .int(revision)
            adopted.append(String(id), .object(child))
        }
        return adopted
    }

    /// Notes, once the mirror holds them, the parent of every child that `parent`'s and
    /// `children`'s states show: the session whose value shows it (`children` is flat:
    /// grandchildren too).
    func linkChildren(of parent: Int, _ children: JSONObject?) {
        for id in [parent] + (children?.keys.compactMap { Int($0) } ?? []) {
            guard let record = sessions[id], let state = mirror.sessions[id]?.state else { continue }
            for child in ChildReferences.ids(in: state, schema: schema(of: record.type)) where child != id {
                sessions[child]?.parent = id
            }
        }
    }

    /// A session's writable fields as the client holds them, with its children's nested where its
    /// value shows them (an object per child, an array for rows): a snapshot made from the
    /// client's fold, for a daemon that died. `schemas` are the old daemon's.
    func heldFields(_ record: SessionRecord, in schemas: Daemon) -> JSONObject {
        guard let schema = schemas.schema(of: record.type) else { return JSONObject() }
        let writable = Set(schema.writable)
        var fields = JSONObject()
        for member in mirror.sessions[record.id]?.state.members ?? [] {
            if writable.contains(member.key) {
                fields.append(member.key, member.value)
            } else if schema.childMembers[member.key] != nil {
                func nested(_ value: JSONValue) -> JSONValue {
                    if let id = ChildReferences.id(of: value) {
                        return sessions[id].map { .object(heldFields($0, in: schemas)) } ?? .null
                    }
                    if case .array(let rows) = value { return .array(rows.map(nested)) }
                    return value
                }
                fields.append(member.key, nested(member.value))
            }
        }
        return fields
    }

    /// Forgets a session and every child under it (closed, detached, or gone in a reload).
    func forget(_ id: Int) {
        mirror.drop(id)
        guard let record = sessions.removeValue(forKey: id) else { return }
        if byDaemonID[record.daemonID] == id { byDaemonID[record.daemonID] = nil }
        for child in sessions.values.filter({ $0.parent == id }).map(\.id) { forget(child) }
    }
}
