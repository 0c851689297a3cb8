import Dispatch

/// The open sessions of one client, and the changes waiting to be sent for them.
///
/// A host handles each request as one turn: run it, then ``collectChanges()`` and send them before
/// the response. Changes that happen outside a turn (an async command resuming, a timer firing)
/// schedule one deferred call of ``onDeferredChanges`` on the main queue, which collects them the same way.
///
/// Main actor only.
@MainActor
public final class SessionTable {
    public let registry: ViewModelRegistry
    /// Called, on the main actor, after changes happened outside a turn.
    public var onDeferredChanges: (@MainActor () -> Void)?
    /// True while the host is in a turn and will collect changes itself at its end.
    public var isInTurn = false

    private var sessions: [Int: Session] = [:]
    private var nextID = 1
    private var dirtySessions: [Session] = []
    private var deferredCallScheduled = false

    public init(registry: ViewModelRegistry) {
        self.registry = registry
        MainThread.record()
    }

    public var count: Int { sessions.count }

    public func session(_ id: Int) -> Session? { sessions[id] }

    /// Makes a new instance of `type` and starts tracking it. Errors thrown by the type's factory pass through.
    public func open(_ type: ViewModelType, arguments: JSONObject, observing names: [String]?) throws -> Session {
        let model = try type.make(OpenContext(arguments: arguments))
        let session = Session(id: nextID, type: type, model: model, observing: names, table: self)
        nextID += 1
        sessions[session.id] = session
        return session
    }

    /// Stops a session's commands and forgets it. Returns false for an unknown id.
    @discardableResult
    public func close(_ id: Int) -> Bool {
        guard let session = sessions.removeValue(forKey: id) else { return false }
        session.close()
        dirtySessions.removeAll { $0 === session }
        return true
    }

    /// The change set of every session that has one, in the order the sessions first changed.
    public func collectChanges() -> [(session: Session, cause: RequestID?, changes: JSONObject)] {
        guard !dirtySessions.isEmpty else { return [] }
        let pending = dirtySessions
        dirtySessions.removeAll(keepingCapacity: true)
        var result: [(session: Session, cause: RequestID?, changes: JSONObject)] = []
        for session in pending {
            let cause = session.pendingCause
            if let changes = session.collectChanges() { result.append((session, cause, changes)) }
        }
        return result
    }

    func sessionBecameDirty(_ session: Session) {
        dirtySessions.append(session)
        guard !isInTurn, !deferredCallScheduled else { return }
        deferredCallScheduled = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.deferredCallScheduled = false
                self.onDeferredChanges?()
            }
        }
    }
}
