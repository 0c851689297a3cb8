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
    public let dependencies: Dependencies
    /// Called, on the main actor, after changes happened outside a turn.
    public var onDeferredChanges: (@MainActor () -> Void)?
    /// Called for every session whose model may have changed (it was collected, or written), so that
    /// a host can keep it (`--state`).
    public var onSessionChanged: (@MainActor (Session) -> Void)?
    /// True while the host is in a turn and will collect changes itself at its end.
    public var isInTurn = false

    private var sessions: [Int: Session] = [:]
    private var sessionsByKey: [ExactKey: Session] = [:]
    private var nextID = 1
    private var dirtySessions: [Session] = []
    private var deferredCallScheduled = false

    /// The time on the dependencies' clock since the table was made: what undo's merge window is
    /// measured on (virtual under `--deterministic`, so transcripts replay).
    let elapsed: @MainActor () -> Duration

    deinit {
        // Sessions refer to their table unowned (see Session.table).
        for session in sessions.values { session.tableIsGone() }
    }

    public init(registry: ViewModelRegistry, dependencies: Dependencies = .live()) {
        self.registry = registry
        self.dependencies = dependencies
        elapsed = Self.stopwatch(on: dependencies.clock)
        MainThread.record()
    }

    private static func stopwatch<C: Clock>(on clock: C) -> @MainActor () -> Duration where C.Duration == Duration {
        // The live clock read directly: through the generic clock, every write's undo step paid a
        // witness call and a boxed instant.
        if let continuous = clock as? ContinuousClock {
            let start = continuous.now
            return { start.duration(to: .now) }
        }
        let start = clock.now
        return { start.duration(to: clock.now) }
    }

    public var count: Int { sessions.count }

    public func session(_ id: Int) -> Session? {
        // A client writes to one form many times in a row: the last session found is asked first
        // (hashing the id and probing cost about 250 instructions a request).
        if let last = lastFound, last.id == id { return last }
        lastFound = sessions[id]
        return lastFound
    }

    /// The session ``session(_:)`` found last; cleared when it closes.
    private var lastFound: Session?

    /// The open session holding `key`, if any.
    public func session(forKey key: String) -> Session? { sessionsByKey[ExactKey(key)] }

    /// Makes a new instance of `type` and starts tracking it. Errors thrown by the type's factory pass through.
    ///
    /// With a `key`, a session already open under that key is returned as it is instead, like
    /// SwiftUI's `@StateObject` keeps its view model while the view lives; closing it frees the key.
    /// With `restoring` field values (a snapshot's `fields`), they are written into the new model
    /// before anything is read from it; a value that does not fit throws ``SessionError``.
    public func open(_ type: ViewModelType, arguments: JSONObject, observing names: [String]?,
                     key: String? = nil, restoring fields: JSONObject? = nil) throws -> Session {
        if let key, let existing = sessionsByKey[ExactKey(key)] {
            guard existing.type === type else { throw KeyInUse(key: key, type: existing.type.name) }
            return existing
        }
        let context = OpenContext(arguments: arguments, dependencies: dependencies)
        let model = try type.make(context)
        if let fields { try type.restore(fields, into: model) }
        // The id is taken first: the session's first read may open child sessions, which take the next.
        let id = nextID
        nextID += 1
        let session = Session(id: id, type: type, model: model, observing: names, key: key, table: self)
        session.own(context.tasks)
        sessions[session.id] = session
        if let key { sessionsByKey[ExactKey(key)] = session }
        return session
    }

    /// Opens the session of a child view model `model` that `parent` shows (see `ChildSessions`).
    func openChild(_ type: ViewModelType, model: AnyObject, parent: Session) -> Session {
        let id = nextID
        nextID += 1
        let session = Session(id: id, type: type, model: model, observing: nil, key: nil, table: self, parent: parent)
        sessions[session.id] = session
        return session
    }

    /// `session/open` named a key that a session of another type holds.
    public struct KeyInUse: Error {
        public let key: String
        public let type: String
    }

    /// Stops a session's commands and forgets it. Returns false for an unknown id.
    @discardableResult
    public func close(_ id: Int) -> Bool {
        guard let session = sessions.removeValue(forKey: id) else { return false }
        if lastFound === session { lastFound = nil }
        if let key = session.key { sessionsByKey[ExactKey(key)] = nil }
        session.close()
        session.tableIsGone()  // closed, it has no more use for the table (which may go first)
        dirtySessions.removeAll { $0 === session }
        return true
    }

    /// Whether lists may be sent as splices (the client said it can apply them).
    public var splicesEnabled = false

    /// For a host with several clients: per dirty session (by id) whose pending cause is a request,
    /// the ``ChangeCause/origin`` (client) it came from. The host empties it after each collection.
    public var pendingOrigins: [Int: Int] = [:]
    /// Whether ``pendingOrigins`` is kept (a host of several clients): otherwise no change asks
    /// for its origin (a task-local read per change).
    public var keepsOrigins = false

    /// The change set of every session that has one, in session id order. (Not in the order the
    /// sessions changed: Observation calls the observers of one property in no fixed order.)
    public func collectChanges() -> [(session: Session, cause: RequestID?, changes: JSONObject, splices: JSONObject)] {
        collectChangeSets().map { ($0.session, $0.cause, $0.changes.changes, $0.changes.splices) }
    }

    /// Like ``collectChanges()``, with each change set's children.
    public func collectChangeSets() -> [(session: Session, cause: RequestID?, changes: Session.ChangeSet)] {
        var result: [(session: Session, cause: RequestID?, changes: Session.ChangeSet)] = []
        forEachChangeSet { result.append(($0, $1, $2)) }
        return result
    }

    /// Collects as ``collectChangeSets()`` does, handing each change set to `body` as it is found
    /// (in session id order) instead of gathering them first: a client's own write, the common
    /// case, then costs no array.
    public func forEachChangeSet(_ body: (_ session: Session, _ cause: RequestID?, _ changes: Session.ChangeSet) -> Void) {
        guard !dirtySessions.isEmpty else { return }
        // The list is taken, not copied (emptying a copy would copy it again), and its storage
        // given back afterwards unless sessions became dirty meanwhile.
        var pending: [Session] = []
        swap(&pending, &dirtySessions)
        defer {
            if dirtySessions.isEmpty {
                pending.removeAll(keepingCapacity: true)
                dirtySessions = pending
            }
        }
        if pending.count > 1 {
            // Plain integers sorted, then looked up (every dirty session is open: closing one takes
            // it off this list): sorting the sessions by a closure cost 13,000 instructions per
            // session in a fan-out to 1,000, this about 500.
            pending = pending.map(\.id).sorted().compactMap { sessions[$0] }
        }
        // Sessions that read the same list in this collection share its conversion and its splice.
        let splicer = splicesEnabled ? ListSplicer() : nil
        func collect() {
            for session in pending {
                onSessionChanged?(session)
                let cause = session.pendingCause
                if let found = session.collectChanges(splicer: splicer) {
                    body(session, cause, found)
                    spareChanges = found.changes  // its storage, for the next change set
                }
            }
        }
        // One session has nothing to share with (the common case: a client's own write).
        if pending.count == 1 { collect() } else { ArrayConversions.sharingConversions(collect) }
    }

    /// The storage of the last change set's changes, given back once it was handed on: the next
    /// change set is built in it instead of in a new one (a session changed again and again, or a
    /// thousand sessions in one collection, then allocate none). One for the table, not one per
    /// session: a session keeps no more memory for it.
    private var spareChanges: JSONObject?

    /// An empty object for a change set's changes (see ``spareChanges``).
    func takeSpareChanges() -> JSONObject? {
        guard var spare = spareChanges.take() else { return nil }
        spare.removeAll(keepingCapacity: true)  // if what it was handed to kept it, new storage
        return spare
    }

    // MARK: Registrations that outlive their session

    /// Types whose sessions' registrations were seen to outlive them: what they read reaches an
    /// object that lives on (a store other sessions share), so their sessions' registrations must
    /// be cancellable from the start (see SessionTracking).
    private var typesNeedingCancellation: Set<ObjectIdentifier> = []
    private var closedTrackings: [(tracking: WeakTracking, type: ViewModelType)] = []

    func needsCancellableTracking(_ type: ViewModelType) -> Bool {
        typesNeedingCancellation.contains(ObjectIdentifier(type))
    }

    /// A session closed with a registration it could not cancel. Every registration holds its
    /// tracking, so once the session itself is gone (after this turn), a tracking still alive means
    /// a registration lives on in an object that outlived the model: the type is marked, and its
    /// later sessions take a beacon. (A session kept alive a while longer, by a command still
    /// unwinding, marks its type too: the safe side.) The registrations left this way end when
    /// what they read next changes; only sessions opened before the mark can leave one.
    func watchForRegistrationsLeftBehind(by tracking: SessionTracking, of type: ViewModelType) {
        guard !needsCancellableTracking(type) else { return }
        if closedTrackings.isEmpty {
            Task { @MainActor in self.markTypesWhoseRegistrationsLiveOn() }
        }
        closedTrackings.append((WeakTracking(tracking), type))
    }

    private func markTypesWhoseRegistrationsLiveOn() {
        for (tracking, type) in closedTrackings where tracking.object != nil {
            typesNeedingCancellation.insert(ObjectIdentifier(type))
        }
        closedTrackings = []
    }

    func sessionBecameDirty(_ session: Session) {
        dirtySessions.append(session)
        if keepsOrigins, let origin = session.pendingScope?.openOrigin { pendingOrigins[session.id] = origin }
        guard !isInTurn, !deferredCallScheduled else { return }
        deferredCallScheduled = true
        Task { @MainActor in
            self.deferredCallScheduled = false
            self.onDeferredChanges?()
        }
    }
}

/// A session key compared by its Unicode scalars: the client's opaque name. Swift's `String`
/// equality would make "\u{E9}" and "e\u{301}", or "K" and KELVIN SIGN, one key.
private struct ExactKey: Hashable {
    let utf8: [UInt8]
    init(_ key: String) { utf8 = Array(key.utf8) }
}

private struct WeakTracking {
    weak var object: SessionTracking?
    init(_ object: SessionTracking) { self.object = object }
}
