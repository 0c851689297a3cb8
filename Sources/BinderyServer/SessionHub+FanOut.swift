import Bindery

/// Sending each turn's changes to the clients that must hear of them.
///
/// Alone (stdio), a client is sent each session's change set as the session found it. Shared
/// (`--listen`), every client attached to a changed session is sent one `didChange` per revision,
/// in order of session id: the members it observes that changed — its own writes not echoed, the
/// other clients' writes included — with `cause` only for the client whose request caused it (a
/// request id means nothing to another client); `changes` may be empty, so that each client sees
/// every revision of the session and a gap still means a lost message.
extension SessionHub {
    /// Collects every dirty session's changes and sends them; called at the start and end of each turn.
    func sendChanges() {
        guard isShared else { return sendToTheOnlyClient() }
        let collected = table.collectChangeSets()
        let origins = table.pendingOrigins
        if !origins.isEmpty { table.pendingOrigins.removeAll(keepingCapacity: true) }
        let writes = writesToTell
        if !writes.isEmpty { writesToTell.removeAll() }
        guard !collected.isEmpty || !writes.isEmpty else { return }
        var items = collected.map { change in
            Item(session: change.session, cause: change.cause, origin: origins[change.session.id],
                 changes: change.changes.changes, splices: change.changes.splices,
                 children: change.changes.children, detached: change.changes.detached, wasCollected: true)
        }
        if !writes.isEmpty {
            let collectedIDs = Set(items.map(\.session.id))
            for (id, written) in writes where !collectedIDs.contains(id) {
                guard let session = table.session(id) else { continue }
                items.append(Item(session: session, cause: written.cause, origin: written.writer,
                                  changes: JSONObject(), splices: JSONObject(), children: JSONObject(), detached: [],
                                  wasCollected: false))
            }
            items.sort { $0.session.id < $1.session.id }
        }
        for item in items { fanOut(item, written: writes[item.session.id]) }
    }

    private struct Item {
        let session: Session
        let cause: RequestID?
        let origin: Int?
        let changes: JSONObject
        let splices: JSONObject
        let children: JSONObject
        let detached: [Int]
        let wasCollected: Bool
    }

    private func fanOut(_ item: Item, written: WrittenFields?) {
        let session = item.session
        guard let list = attachments[session.id], !list.isEmpty else { return }
        // Child view models: every client of the parent is a client of its children.
        for id in item.detached { attachments[id] = nil }
        for (id, _) in item.children.members {
            guard let child = Int(id) else { continue }
            attachments[child] = list.map { Attachment(client: $0.client, observed: nil) }
            for attachment in list { attachment.client.attached.insert(child) }
        }
        if !item.wasCollected {
            // Only a value one client wrote and is not told: a revision if another client observes it.
            guard let written, list.contains(where: { attachment in
                attachment.client.clientNumber != written.writer
                    && written.fields.contains { attachment.observed?.contains($0.name) ?? true }
            }) else { return }
            session.advanceRevision()
        }
        // One client attached (a private session, or a shared one with one client left): it
        // observes exactly what the session does, and nobody else wrote; send as a stdio daemon would.
        if list.count == 1, written == nil, item.wasCollected, list[0].client.wantsSplices || item.splices.isEmpty {
            let client = list[0].client
            guard !client.isClosed else { return }
            let cause = item.origin == client.clientNumber ? item.cause : nil
            let (children, display) = displayed(item.children, item.changes, of: session, for: client)
            var arrays = JSONWriter.ArrayBytes()
            client.connection.send { output in
                Server.writeDidChange(session: session.id, revision: session.revision, changes: item.changes,
                                      splices: item.splices, children: children, detached: item.detached,
                                      cause: cause, display: display, to: &output, arrays: &arrays)
            }
            return
        }
        // The same bytes for every client that observes everything and is not the cause.
        var shared: [SharedKey: [UInt8]] = [:]
        var wholeState: JSONObject?
        for attachment in list {
            let client = attachment.client
            guard !client.isClosed else { continue }
            let isOrigin = item.origin == client.clientNumber
            let cause = isOrigin ? item.cause : nil
            let addsWrites = written.map { $0.writer != client.clientNumber } ?? false
            let key = SharedKey(addsWrites: addsWrites, splices: client.wantsSplices, display: client.wantsDisplay)
            if attachment.observed == nil, cause == nil, let bytes = shared[key] {
                client.connection.send(bytes)
                continue
            }
            var changes = item.changes
            var splices = item.splices
            if addsWrites, let written { changes = Self.merge(changes, written.fields, in: session.type) }
            if !client.wantsSplices, !splices.isEmpty {
                if wholeState == nil { wholeState = session.state() }
                let whole = splices.members.map { (name: $0.key, value: wholeState?[$0.key] ?? .null) }
                changes = Self.merge(changes, whole, in: session.type)
                splices = JSONObject()
            }
            if let observed = attachment.observed {
                changes = Self.filter(changes, to: observed)
                splices = Self.filter(splices, to: observed)
            }
            let (children, display) = displayed(item.children, changes, of: session, for: client)
            let bytes = Server.didChangeBytes(session: session.id, revision: session.revision, changes: changes,
                                              splices: splices, children: children, detached: item.detached,
                                              cause: cause, display: display)
            if attachment.observed == nil, cause == nil { shared[key] = bytes }
            client.connection.send(bytes)
        }
    }

    private struct SharedKey: Hashable {
        let addsWrites: Bool
        let splices: Bool
        let display: Bool
    }

    /// The children entries and the `display` a client that asked for display is sent with
    /// `changes` (every such didChange carries one, empty or not); nil display, and the entries as
    /// they are, for a client that did not ask.
    private func displayed(_ children: JSONObject, _ changes: JSONObject, of session: Session,
                           for client: Server) -> (children: JSONObject, display: JSONObject?) {
        guard client.wantsDisplay else { return (children, nil) }
        return (children.isEmpty ? children : addingDisplay(toChildren: children), session.type.display(of: changes))
    }

    /// `changes` with `more` added, in the type's declaration order (members already there win).
    private static func merge(_ changes: JSONObject, _ more: [(name: String, value: JSONValue)],
                              in type: ViewModelType) -> JSONObject {
        var merged = JSONObject(minimumCapacity: changes.count + more.count)
        for name in type.memberNames {
            if let value = changes[name] {
                merged.append(name, value)
            } else if let extra = more.last(where: { $0.name == name }) {
                merged.append(name, extra.value)
            }
        }
        return merged
    }

    /// The stdio daemon's path: one client, every session its own.
    private func sendToTheOnlyClient() {
        guard let client = clients.first else {
            _ = table.collectChangeSets()
            return
        }
        // Sessions that read one list (a thousand movie lists) send its JSON written once.
        var arrays: JSONWriter.ArrayBytes?
        table.forEachChangeSet { session, cause, found in
            guard !client.isClosed else { return }
            if arrays == nil { arrays = JSONWriter.ArrayBytes() }
            guard client.wantsDisplay else {
                return client.connection.send { output in
                    Server.writeDidChange(session: session.id, revision: session.revision, changes: found.changes,
                                          splices: found.splices, children: found.children, detached: found.detached,
                                          cause: cause, to: &output, arrays: &arrays!)
                }
            }
            let (children, display) = displayed(found.children, found.changes, of: session, for: client)
            client.connection.send { output in
                Server.writeDidChange(session: session.id, revision: session.revision, changes: found.changes,
                                      splices: found.splices, children: children, detached: found.detached,
                                      cause: cause, display: display, to: &output, arrays: &arrays!)
            }
        }
    }

    /// Notes a value `writer` wrote into `session` and is not told (no echo), for its other clients.
    func recordWrite(_ session: Session, field: String, value: JSONValue, by writer: Server) {
        guard let list = attachments[session.id], list.count > 1 else { return }
        var written = writesToTell[session.id]
            ?? WrittenFields(writer: writer.clientNumber, cause: ChangeCause.current, fields: [])
        written.fields.append((field, value))
        writesToTell[session.id] = written
    }
}
