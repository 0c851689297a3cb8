import BinderyMirror
import JSONRPC

/// The last step of a reload: the client is told what differs in each moved session, and the new
/// daemon becomes the one serving. Main actor, like all of ``Reloader``.
///
/// Children move inside their parent (its snapshot holds their fields, its new model makes them
/// again), so the new daemon's children are paired with the client's by place: the same member,
/// the same position in its list, the same type. A paired child keeps the client's id; a child
/// the new model shows and the client did not know is new (in its parent's `children`); a child
/// of the client's the new model no longer shows is `detached` from its parent and closed
/// (`session/closed`), with every child under it.
extension Reloader {
    /// Sends the reload's `didChange`s and `session/closed`s and installs `daemon`; the children
    /// that did not move, with why.
    func switchOver(to daemon: Daemon, _ outcome: Migration.Outcome, tracker: MigrationTracker)
        -> [(record: SessionRecord, reason: String)] {
        var mapping: [Int: Int] = [:]          // new daemon's id -> client's id
        var newParent: [Int: Int] = [:]        // new daemon's child -> its parent there
        var pairs: [(client: Int, daemon: Int)] = []
        var kept: Set<Int> = []
        for moved in outcome.moved {
            mapping[moved.daemonID] = moved.record.id
            pairs.append((moved.record.id, moved.daemonID))
            kept.insert(moved.record.id)
        }
        // The new tree, walked from the roots: parents, and pairs with the client's children by place.
        var walk = outcome.moved.map(\.daemonID)
        var index = 0
        while index < walk.count {
            let daemonID = walk[index]
            index += 1
            guard let entry = tracker.mirror.sessions[daemonID] else { continue }
            let schema = daemon.schema(of: entry.type)
            for child in ChildReferences.ids(in: entry.state, schema: schema) where newParent[child] == nil && mapping[child] == nil {
                newParent[child] = daemonID
                walk.append(child)
            }
            guard let clientID = mapping[daemonID], let told = proxy.mirror.sessions[clientID] else { continue }
            for (clientChild, daemonChild) in ChildReferences.pairs(told.state, entry.state, schema: schema)
            where mapping[daemonChild] == nil && !kept.contains(clientChild)
                && proxy.sessions[clientChild]?.parent == clientID
                && proxy.sessions[clientChild]?.type == tracker.mirror.sessions[daemonChild]?.type {
                mapping[daemonChild] = clientChild
                kept.insert(clientChild)
                pairs.append((clientChild, daemonChild))
            }
        }
        // Children new to the client: ids of its own, told in the didChange of their nearest known ancestor.
        var newChildren: [Int: JSONObject] = [:]   // client's id of the ancestor -> children entries
        var records: [SessionRecord] = []
        for daemonID in walk where mapping[daemonID] == nil {
            mapping[daemonID] = proxy.nextSessionID
            proxy.nextSessionID += 1
        }
        func clientState(_ entry: Mirror.Session) -> JSONObject {
            ChildReferences.mapping(state: entry.state, schema: daemon.schema(of: entry.type)) { mapping[$0] }
        }
        let paired = Set(pairs.map(\.daemon))
        for daemonID in walk where !paired.contains(daemonID) {
            guard let entry = tracker.mirror.sessions[daemonID], let id = mapping[daemonID] else { continue }
            var ancestor = newParent[daemonID]
            while let next = ancestor, !paired.contains(next) { ancestor = newParent[next] }
            let state = clientState(entry)
            records.append(SessionRecord(id: id, type: entry.type, parent: newParent[daemonID].flatMap { mapping[$0] }, key: nil,
                                         args: nil, observe: nil, daemonID: daemonID, offset: 0))
            proxy.mirror.take(id, Mirror.Session(type: entry.type, revision: entry.revision, state: state, display: entry.display))
            if let ancestor, let ancestorID = mapping[ancestor] {
                var child: JSONObject = ["type": .string(entry.type), "revision": .int(entry.revision), "state": .object(state)]
                if let display = entry.display { child.append("display", .object(display)) }
                newChildren[ancestorID, default: JSONObject()].append(String(id), .object(child))
            }
        }
        // The client's children the new tree does not show: the topmost detached from their parent.
        var gone: [(record: SessionRecord, reason: String)] = []
        var detached: [Int: [JSONValue]] = [:]
        for record in proxy.sessions.values.sorted(by: { $0.id < $1.id }) where record.parent != nil && !kept.contains(record.id) {
            guard let parent = record.parent, proxy.sessions[parent] != nil else { continue }
            var top = record
            while let up = top.parent, let above = proxy.sessions[up], above.parent != nil, !kept.contains(up) { top = above }
            guard top.parent.map(kept.contains) ?? false else { continue }   // under a session closed by the reload
            if top.id == record.id { detached[parent, default: []].append(.int(record.id)) }
            let typeGone = daemon.schema(of: record.type) == nil
            gone.append((record, typeGone ? "the view model type \"\(record.type)\" no longer exists"
                : "the new model does not show it (a model makes its children; only their fields move)"))
        }
        for (clientID, daemonID) in pairs.sorted(by: { $0.client < $1.client }) {
            // As the client holds it now: a didChange the old daemon sent while the sessions moved
            // has been folded since the migration began.
            guard var record = proxy.sessions[clientID], var told = proxy.mirror.sessions[clientID] else { continue }
            let entry = tracker.mirror.sessions[daemonID] ?? Mirror.Session(type: record.type, revision: 0, state: JSONObject())
            let state = clientState(entry)
            let changes = differences(from: told.state, to: state)
            var params: JSONObject = ["session": .int(clientID), "revision": .int(told.revision + 1), "changes": .object(changes)]
            if let children = newChildren[clientID] { params.append("children", .object(children)) }
            if let ids = detached[clientID] { params.append("detached", .array(ids)) }
            // With the display capability, the text of each member told, as the daemon's own didChanges.
            if let display = entry.display { params.append("display", .object(display.filtering(changes.keys))) }
            if !changes.isEmpty || params["children"] != nil || params["detached"] != nil {
                told.revision += 1
                proxy.client.send(notification("didChange", params))
            }
            // From now on the client's state is the new one whole: a member the new type dropped is gone.
            proxy.mirror.take(clientID, Mirror.Session(type: told.type, revision: told.revision, state: state,
                                                       display: entry.display ?? told.display))
            record.daemonID = daemonID
            record.offset = told.revision - entry.revision
            if let observe = record.observe, let schema = daemon.schemas[record.type] {
                record.observe = observe.filter(schema.members.contains)
            }
            records.append(record)
        }
        for (record, reason) in outcome.closed + gone {
            proxy.client.send(notification("session/closed", ["session": .int(record.id), "type": .string(record.type),
                                                              "reason": .string(reason)]))
        }
        proxy.install(daemon, sessions: records, highestDaemonID: tracker.highestID)
        return gone
    }
}

/// The members of `new` whose value `old` does not hold, in `new`'s order: what a reload tells.
private func differences(from old: JSONObject, to new: JSONObject) -> JSONObject {
    var changes = JSONObject()
    for member in new.members {
        if let held = old[member.key], held.isSameValue(as: member.value) { continue }
        changes.append(member.key, member.value)
    }
    return changes
}
