import BinderyMirror
import JSONRPC

/// Moves every open session from the daemon serving the client to a new one, during a reload.
///
/// For each session, in the order the client opened them: the old daemon's `session/snapshot`
/// gives its writable fields; the new daemon opens the session again (same type, `key`, `args`,
/// observed members that still exist) restoring the fields that are still writable fields of the
/// type. When the type changed so that a value no longer fits, the session is opened afresh and
/// its fields are set one by one, by name: the ones refused fall back to their initial value.
/// A session whose type is gone, or refuses to open, is closed. Nothing is sent to the client
/// here: ``Reloader`` does that once every session has moved, or rolls back if the new daemon
/// died meanwhile. Main actor only.
@MainActor
struct Migration {
    let old: Daemon
    let new: Daemon

    /// A session opened in the new daemon, with its state there (kept current by `track`).
    struct Moved {
        var record: SessionRecord
        var daemonID: Int
        var removed: [String] = []
        var fellBack: [String] = []
    }

    struct Outcome {
        var moved: [Moved] = []
        var closed: [(record: SessionRecord, reason: String)] = []
    }

    /// The new daemon died (or stopped answering) while sessions were being moved.
    struct Died: Error {
        let message: String
    }

    /// Moves `records`, the sessions the client opened (children move inside their parent: its
    /// snapshot holds their fields, and its new model makes them again).
    /// `held` gives a session's writable fields as the client holds them, its children's nested:
    /// what moves when the old daemon cannot give a snapshot (it died).
    func run(_ records: [SessionRecord], tracker: MigrationTracker,
             held: (SessionRecord) -> JSONObject) async throws(Died) -> Outcome {
        // Every snapshot asked for at once, then every answer awaited.
        let snapshots = records.map { record in
            Task { @MainActor in try await old.call("session/snapshot", ["session": .int(record.daemonID)], timeout: .seconds(5)) }
        }
        var outcome = Outcome()
        for (record, snapshot) in zip(records, snapshots) {
            guard let schema = new.schemas[record.type] else {
                outcome.closed.append((record, "the view model type \"\(record.type)\" no longer exists"))
                continue
            }
            // The snapshot's fields; failing that (the old daemon died, or does not answer it),
            // the writable fields the client holds, as the old schema names them.
            let fields = (try? await snapshot.value)?["fields"]?.objectValue ?? held(record)
            do {
                outcome.moved.append(try await move(record, fields: fields, schema: schema, tracker: tracker))
            } catch let error as Daemon.CallError where new.exitCode == nil && error.code != -32603 {
                outcome.closed.append((record, "the new daemon refused to open it again: \(error.message)"))
            } catch {
                throw Died(message: "\(error)")
            }
        }
        return outcome
    }

    /// The fields of a snapshot the new type still takes: its writable fields, and in a member
    /// that holds children, each child's fields its own new type still takes.
    private func restorable(_ fields: JSONObject, _ schema: Schema) -> JSONObject {
        let writable = Set(schema.writable)
        var kept = JSONObject()
        for member in fields.members {
            if writable.contains(member.key) {
                kept.append(member.key, member.value)
            } else if let type = schema.childMembers[member.key], let child = new.schema(of: type) {
                func nested(_ value: JSONValue) -> JSONValue {
                    if case .object(let object) = value { return .object(restorable(object, child)) }
                    if case .array(let rows) = value { return .array(rows.map(nested)) }
                    return value
                }
                kept.append(member.key, nested(member.value))
            }
        }
        return kept
    }

    private func move(_ record: SessionRecord, fields: JSONObject, schema: Schema, tracker: MigrationTracker) async throws -> Moved {
        let writable = Set(schema.writable)
        let restoring = restorable(fields, schema)
        let kept = JSONObject(restoring.members.filter { writable.contains($0.key) })
        var open = JSONObject()
        open.append("type", .string(record.type))
        if let args = record.args { open.append("args", args) }
        if let key = record.key { open.append("key", .string(key)) }
        if let observe = record.observe { open.append("observe", .array(observe.filter(schema.members.contains).map { .string($0) })) }
        var moved = Moved(record: record, daemonID: 0)
        moved.removed = fields.members.map(\.key).filter { restoring[$0] == nil }
        var reopen = open
        reopen.append("restore", ["type": .string(record.type), "schemaHash": .string(schema.hash), "revision": 0,
                                  "fields": .object(restoring)])
        do {
            let result = try await new.call("session/open", .object(reopen), timeout: .seconds(5))
            moved.daemonID = try tracker.opened(result, type: record.type)
            return moved
        } catch let error as Daemon.CallError where error.code == -32022 {
            // A value no longer fits: open afresh (its children restored, if they fit) and set
            // each field by name.
        }
        let children = JSONObject(restoring.members.filter { !writable.contains($0.key) })
        var withChildren = open
        withChildren.append("restore", ["type": .string(record.type), "schemaHash": .string(schema.hash), "revision": 0,
                                        "fields": .object(children)])
        do {
            guard !children.isEmpty else { throw Daemon.CallError(code: -32022, message: "no children", data: nil) }
            moved.daemonID = try tracker.opened(try await new.call("session/open", .object(withChildren), timeout: .seconds(5)),
                                                type: record.type)
        } catch let error as Daemon.CallError where error.code == -32022 {
            moved.daemonID = try tracker.opened(try await new.call("session/open", .object(open), timeout: .seconds(5)),
                                                type: record.type)
        }
        let writes = kept.members.map { field in
            Task { @MainActor in
                try await new.call("setField", ["session": .int(moved.daemonID), "field": .string(field.key), "value": field.value],
                                   timeout: .seconds(5))
            }
        }
        for (field, write) in zip(kept.members, writes) {
            do {
                _ = try await write.value
            } catch let error as Daemon.CallError where error.code == -32014 || error.code == -32013 {
                moved.fellBack.append(field.key)
            }
        }
        tracker.refreshed(moved.daemonID, try await new.call("session/state", ["session": .int(moved.daemonID)], timeout: .seconds(5)),
                          type: record.type)
        return moved
    }
}

/// The state of each session in the new daemon while it is being moved into, children included, as
/// a client of it would hold them: taken from its `session/open` (or `session/state`) result, then
/// folded from its `didChange`s (a timer may tick meanwhile), so that it is current when the client
/// is told. Main actor only.
@MainActor
final class MigrationTracker {
    /// The new daemon's sessions, by its ids.
    private(set) var mirror = Mirror()
    /// The largest session id the new daemon has given: the next one it opens is counted from there.
    private(set) var highestID = 0

    /// Records a `session/open` result; its session id.
    func opened(_ result: JSONValue, type: String) throws -> Int {
        guard let id = result["session"]?.intValue else {
            throw Daemon.CallError(code: -32603, message: "session/open answered without a session", data: nil)
        }
        refreshed(id, result, type: type)
        return id
    }

    /// Records a `session/open` or `session/state` result: the session and every child under it.
    func refreshed(_ id: Int, _ result: JSONValue, type: String) {
        mirror.take(id, Mirror.Session(result.setting("type", .string(type))))
        if let children = result["children"]?.objectValue { mirror.take(children: children) }
        highestID = max(highestID, mirror.sessions.keys.max() ?? 0)
    }

    /// A message the new daemon wrote during the move.
    func received(_ message: JSONValue) {
        mirror.receive(message)
        highestID = max(highestID, mirror.sessions.keys.max() ?? 0)
    }
}
