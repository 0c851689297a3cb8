import JSONRPC

/// One session as the client knows it, kept by watching the messages both ways: what it was
/// opened with (to open it again in a new daemon) and the client's fold of its state (to tell the
/// client, after a reload, exactly what differs). Owned by the main actor, in ``Proxy``.
struct SessionRecord {
    /// The id the client knows; it never changes, whichever daemon holds the session.
    let id: Int
    /// The registered type's name; for a child view model, its Swift type's (as `children` names it).
    let type: String
    /// For a child view model, the client's id of the session whose value shows it.
    var parent: Int?
    let key: String?
    let args: JSONValue?
    /// The members the client observes; nil for all of them.
    var observe: [String]?
    /// The state as the client holds it: what `session/open` returned, with every `didChange`,
    /// `session/state` and `session/observe` applied, and the client's own writes (never echoed).
    var state: JSONObject
    /// The last revision the client was told.
    var revision: Int
    /// The session's id in the current daemon.
    var daemonID: Int
    /// Added to the daemon's revisions: revisions go on from where they were across a reload.
    var offset: Int

    /// Applies a `didChange`'s `changes` and `splices` (already in the client's revisions).
    mutating func apply(changes: JSONObject?, splices: JSONObject?, revision: Int) {
        for member in changes?.members ?? [] { state[member.key] = member.value }
        for member in splices?.members ?? [] {
            guard case .array(var list)? = state[member.key] else { continue }
            for op in member.value["ops"]?.arrayValue ?? [] {
                guard let at = op["at"]?.intValue, let delete = op["delete"]?.intValue,
                      at >= 0, delete >= 0, at + delete <= list.count else { continue }
                list.replaceSubrange(at..<(at + delete), with: op["insert"]?.arrayValue ?? [])
            }
            state[member.key] = .array(list)
        }
        self.revision = revision
    }

    /// The members of `new` whose value the client does not hold, in `new`'s order.
    func differences(to new: JSONObject) -> JSONObject {
        var changes = JSONObject()
        for member in new.members {
            if let old = state[member.key], old.isSameValue(as: member.value) { continue }
            changes.append(member.key, member.value)
        }
        return changes
    }
}
