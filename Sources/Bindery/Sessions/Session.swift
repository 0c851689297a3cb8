/// One live view model instance driven by a client, and what that client has been told about it.
///
/// The session keeps, per observed member, the last value sent to the client (or written by it).
/// One Observation tracking covers every observed member: any write to anything their values were
/// computed from marks the whole session dirty, and ``collectChanges()`` re-reads the observed
/// members, keeps those that differ exactly from what was sent, counts one revision for the lot,
/// and tracks the new reads. See ``SessionTracking`` for why one tracking rather than one per member.
///
/// Main actor only, like the view model.
@MainActor
public final class Session {
    public let id: Int
    public let type: ViewModelType
    /// The client's name for this session, from `session/open`'s `key`.
    public let key: String?
    let model: AnyObject
    /// Whether Observation sees the model's changes (it is `@Observable`): asked once, not per write.
    private let modelIsObservable: Bool
    /// Counts the change sets sent: 0 at open, one more per ``collectChanges()`` that found any.
    public private(set) var revision = 0
    public private(set) var isClosed = false
    /// The request that caused the first pending change, while it is unanswered.
    public var pendingCause: RequestID? { pendingScope?.openID }
    /// The scope of the request that caused the first pending change, if any (see ``ChangeCause``).
    private(set) var pendingScope: RequestScope?

    /// Per member, the last value the client was told (or wrote); nil while not observed.
    private var lastSent: [JSONValue?]
    private var isDirty = false
    /// Set when the model changed without Observation telling (an equal-but-different write): the
    /// next collection registers again, as what the members read may differ now.
    private var mustTrackAgain = false
    private var tracking: SessionTracking!
    private var history = SessionHistory()
    private var runningCounts: [Int]
    /// Runs of async commands under way, by number; the task is nil until ``track(task:number:)``.
    private var runningTasks: [Int: Task<Void, Never>?] = [:]
    /// The request each running command was invoked by, by run number.
    private var runningCauses: [Int: RequestScope?] = [:]
    /// Work started by the factory with `OpenContext.task`, cancelled at close.
    private var ownedTasks: [Task<Void, Never>] = []
    private var nextTaskNumber = 0
    /// Unowned, not weak (a weakly referenced table takes the runtime's slow path at every retain,
    /// several per request); the table clears it for its sessions when it goes (its `deinit`), and
    /// a session it closed no longer reaches for it.
    nonisolated(unsafe) private(set) unowned(unsafe) var table: SessionTable?
    /// The session whose member holds this one's model, for a child view model.
    public private(set) weak var parent: Session?
    /// Child view models' sessions, by their model's identity (see `ChildSessions`).
    private var children: [ObjectIdentifier: Session] = [:]
    /// The children met during the current full read of the members.
    private var childrenSeen: Set<ObjectIdentifier> = []
    /// Children opened (and their own children) since the client was last told, and children that
    /// went: for the next change set, or the state an open returns.
    private var childrenOpened: [Session] = []
    private var childrenClosed: [Int] = []

    init(id: Int, type: ViewModelType, model: AnyObject, observing names: [String]?, key: String?,
         table: SessionTable, parent: Session? = nil) {
        self.id = id
        self.parent = parent
        self.type = type
        self.key = key
        self.model = model
        modelIsObservable = model is any Observable
        self.table = table
        runningCounts = Array(repeating: 0, count: type.commands.count)
        lastSent = Array(repeating: nil, count: type.members.count)
        let observed = names.map { Set($0.compactMap(type.memberIndex(named:))) }
        for index in type.members.indices where observed?.contains(index) ?? true {
            lastSent[index] = .null  // observed; the real value comes from the first tracked read
        }
        // Unowned, not weak: a weakly referenced object keeps its counts in a side table, and every
        // retain of a session (a dozen per request) then takes the slow path. The tracking does not
        // call back once the session is gone (`deinit` below).
        tracking = SessionTracking(cancellable: table.needsCancellableTracking(type)) { [unowned(unsafe) self] scope in
            self.markDirty(scope: scope)
        }
        rearm { index, value in lastSent[index] = value }
    }

    deinit {
        // A registration that outlives the session (in a store it read) may still fire.
        tracking.ownerIsGone = true
    }

    /// The table is gone (see ``table``).
    nonisolated func tableIsGone() {
        table = nil
    }

    /// The current value of every observed member, in declaration order.
    public func state() -> JSONObject {
        var state = JSONObject(minimumCapacity: lastSent.count)
        fullRead {
            for index in lastSent.indices where lastSent[index] != nil {
                state.append(type.memberNames[index], read(index))
            }
        }
        return state
    }

    /// Narrows (or widens) what the client is told about to `names`; returns the state of that set,
    /// which the client takes as its new starting point. Unknown names must have been rejected by
    /// the caller.
    public func observe(_ names: [String]) -> JSONObject {
        let wanted = Set(names.compactMap(type.memberIndex(named:)))
        for index in lastSent.indices {
            lastSent[index] = wanted.contains(index) ? .null : nil
        }
        isDirty = false
        rearm { index, value in lastSent[index] = value }
        return state()
    }

    /// Stores a client's value in a field, and records that the client now holds it, so that it is
    /// not echoed back — unless the model ends up holding something else: a value the model changed,
    /// or one its type could not hold exactly (16777217 in a Float). Then the stored value is sent.
    ///
    /// Returns true when the write changed the observed field to exactly the value written: the
    /// writer is not told, so a host serving other clients of this session must tell them (the
    /// change is in no change set: see ``advanceRevision()``).
    @discardableResult
    public func setField(_ name: String, to value: JSONValue) throws(SessionError) -> Bool {
        guard let index = type.memberIndex(named: name) else {
            throw .unknownField(name, known: type.memberNames)
        }
        guard case .property(let property) = type.members[index],
              let write = type.properties[property].write else {
            throw .readOnlyField(name)
        }
        // What the model held: what the client was told, when it observes the field (cheaper than a read).
        let before = lastSent[index] ?? read(index)
        do throws(ValueError) {
            try type.matchingValues(of: model) { () throws(ValueError) in try write(model, value) }
        } catch {
            throw .wrongValueType(field: name, error)
        }
        let after = read(index)
        let changed = !after.isSameValue(as: before)
        if changed, let clock = table?.elapsed {
            history.recordWrite(property: property, before: before, after: after, at: clock())
        }
        if changed, after.isSwiftEqual(to: before) {
            // The setter saw "no change" by Swift's `==` and told Observation nothing, yet the model
            // now holds another value (-0.0 for 0, "e\u{301}" for "\u{E9}"): what was derived from it
            // may differ too. Re-read everything rather than leave the client believing the old.
            mustTrackAgain = true
            markDirty()
        }
        // A model Observation cannot see at all (not `@Observable`): what the write changed is
        // found by reading again.
        if !modelIsObservable { markDirty() }
        guard lastSent[index] != nil else { return false }
        lastSent[index] = value
        let holdsWhatWasWritten = after.isSameValue(as: value)
        if !holdsWhatWasWritten { markDirty() }
        return holdsWhatWasWritten && changed
    }

    /// Counts a revision for changes a host sends that no collection found: a value one client
    /// wrote (not echoed to it, so in no change set) that the session's other clients must be told.
    public func advanceRevision() {
        revision += 1
    }

    /// What one collection found: members sent whole, and lists sent as splices (by member name:
    /// `{ops: [{at, delete, insert}], length}`). A member is in one or the other. With them, the
    /// child sessions its values now show for the first time (`children`) and those they no
    /// longer show, now closed (`detached`).
    public struct ChangeSet {
        public var changes = JSONObject()
        public var splices = JSONObject()
        public var children = JSONObject()
        public var detached: [Int] = []
        public var isEmpty: Bool { changes.isEmpty && splices.isEmpty && children.isEmpty && detached.isEmpty }
    }

    /// The values of its writable fields: what a snapshot keeps (outputs are recomputed on restore).
    public func fieldValues() -> JSONObject { type.fieldValues(of: model) }

    // MARK: Undo and redo

    /// Whether a step of the client's writes can be undone, or redone.
    public var canUndo: Bool { history.canUndo }
    public var canRedo: Bool { history.canRedo }

    /// Writes back the values the last step of the client's writes replaced; false when there is
    /// none. The changes it makes are sent like any other (the client did not write them).
    @discardableResult
    public func undo() -> Bool {
        guard let step = history.undo() else { return false }
        for write in step.writes.reversed() { restore(write.property, write.before) }
        return true
    }

    /// Writes again what the last undone step had written; false when there is none.
    @discardableResult
    public func redo() -> Bool {
        guard let step = history.redo() else { return false }
        for write in step.writes { restore(write.property, write.after) }
        return true
    }

    private func restore(_ property: Int, _ value: JSONValue) {
        guard let write = type.properties[property].write else { return }
        // A value the model held before decodes again; nothing to report if it did not.
        try? write(model, value)
        // Observation may not have seen it (a value equal to the current one by `==`).
        mustTrackAgain = true
        markDirty()
    }

    /// The values of the writable fields, for an undoable command's step.
    func fieldValuesByProperty() -> [(property: Int, value: JSONValue)] {
        type.properties.indices.filter { type.properties[$0].isWritable }.map { ($0, type.properties[$0].read(model)) }
    }

    /// A command ran: an undoable one records the fields it changed (given their values before it),
    /// any other ends the current step and clears what could be redone.
    func commandRan(undoable fieldsBefore: [(property: Int, value: JSONValue)]?) {
        guard let fieldsBefore, let clock = table?.elapsed else {
            history.commandInvoked()
            return
        }
        var writes: [SessionHistory.Write] = []
        for (property, before) in fieldsBefore {
            let after = type.properties[property].read(model)
            if !after.isSameValue(as: before) { writes.append(.init(property: property, before: before, after: after)) }
        }
        history.recordCommand(writes, at: clock())
    }

    /// Re-reads the observed members if anything they depend on changed; returns those whose value
    /// differs from what was last sent, and counts a new revision if there are any. With a
    /// `splicer`, a list that kept some of its elements is sent as a splice.
    public func collectChanges() -> JSONObject? {
        collectChanges(splicer: nil)?.changes
    }

    func collectChanges(splicer: ListSplicer?) -> ChangeSet? {
        guard isDirty, !isClosed else { return nil }
        isDirty = false
        pendingScope = nil
        var found = ChangeSet()
        fullRead { reread { index, value in
            let name = type.memberNames[index]
            if let splicer, case .array(let old)? = lastSent[index], case .array(let new) = value {
                switch splicer.splice(from: old, to: new) {
                case .unchanged:
                    return
                case .splice(let at, let delete, let insert):
                    lastSent[index] = value
                    let op: JSONValue = ["at": .int(at), "delete": .int(delete), "insert": .array(Array(insert))]
                    found.splices.append(name, ["ops": [op], "length": .int(new.count)])
                    return
                case .whole:
                    break
                }
            } else if let sent = lastSent[index], value.isSameValue(as: sent) {
                return
            }
            lastSent[index] = value
            if found.changes.isEmpty { found.changes = table?.takeSpareChanges() ?? JSONObject(minimumCapacity: lastSent.count) }
            found.changes.append(name, value)
        } }
        (found.children, found.detached) = takeChildrenNews()
        guard !found.isEmpty else { return nil }
        revision += 1
        return found
    }

    /// Whether an async command of this session is still running.
    public var hasRunningCommands: Bool { !runningTasks.isEmpty }

    func own(_ tasks: [Task<Void, Never>]) {
        ownedTasks += tasks
    }

    /// Cancels the session's running commands, its tasks and its tracking. A closed session leaves
    /// nothing registered with a store other sessions share, except as the table describes in
    /// ``SessionTable/watchForRegistrationsLeftBehind(by:of:)``.
    func close() {
        isClosed = true
        for child in children.values { table?.close(child.id) }
        children.removeAll()
        if !tracking.cancel() || tracking.leftARegistrationBehind {
            table?.watchForRegistrationsLeftBehind(by: tracking, of: type)
        }
        for task in runningTasks.values { task?.cancel() }
        for task in ownedTasks { task.cancel() }
        ownedTasks.removeAll()
    }

    // MARK: Reading and tracking

    private func read(_ index: Int) -> JSONValue {
        switch type.members[index] {
        case .property(let property) where type.hasChildren:
            ChildSessions.reading(for: self) { type.properties[property].read(model) }
        case .property(let property): type.properties[property].read(model)
        case .enabled(let command): .bool(type.commands[command].isEnabled?(model) ?? true)
        case .running(let command): .bool(runningCounts[command] > 0)
        }
    }

    /// Reads every observed member, in order, and hands each value to `body`: under a new tracking
    /// when the old one fired (or the model changed unseen); without tracking when it is still
    /// armed, because then nothing it read has changed, so the same reads touch the same things and
    /// the registration still covers them (dirty only because a command started or ended).
    private func reread(_ body: (Int, JSONValue) -> Void) {
        guard tracking.isArmed, !mustTrackAgain else { return rearm(body) }
        for index in lastSent.indices where lastSent[index] != nil {
            body(index, read(index))
        }
    }

    /// Reads every observed member, in order, under a new tracking that replaces the old one, and
    /// hands each value to `body` (which keeps it in ``lastSent``).
    private func rearm(_ body: (Int, JSONValue) -> Void) {
        mustTrackAgain = false
        let installed = tracking.track {
            for index in lastSent.indices where lastSent[index] != nil {
                body(index, self.read(index))
            }
        }
        guard installed else { return }
        // Another thread may have written between a read and the registration's installation,
        // unseen by both: what reads differently now is a change (see SessionTracking).
        for index in lastSent.indices {
            if let before = lastSent[index], !self.read(index).isSameValue(as: before) {
                return markDirty(scope: runningScope)
            }
        }
    }

    /// Marks the session for the next collection, naming the request of `scope` as its cause while
    /// that request is unanswered — by default the request being handled, or else the one command
    /// running, when there is exactly one.
    func markDirty(scope: RequestScope? = ChangeCause.scope) {
        guard !isDirty, !isClosed else { return }
        isDirty = true
        pendingScope = scope?.isOpen == true ? scope : runningScope
        table?.sessionBecameDirty(self)
    }

    /// The request of the one command of this session that is running, if exactly one is: what a
    /// change from a thread or task that carries no cause of its own is attributed to.
    private var runningScope: RequestScope? {
        var found: RequestScope?
        for case let scope? in runningCauses.values where scope.isOpen {
            if let found, found !== scope, found.id != scope.id { return nil }
            found = scope
        }
        return found
    }

    // MARK: Children

    /// The child session of `model`, opened now if this is the first time a member shows it.
    func child(for model: AnyObject, of childType: ViewModelType) -> Session {
        let identity = ObjectIdentifier(model)
        childrenSeen.insert(identity)
        if let existing = children[identity] { return existing }
        let child = table!.openChild(childType, model: model, parent: self)
        children[identity] = child
        childrenOpened.append(child)
        return child
    }

    /// Every child session under this one, by id, with its type, revision and state: what a client
    /// resynchronising (`session/state`) takes as its children's starting point.
    public func descendantStates() -> JSONObject {
        var states = JSONObject()
        for child in children.values.sorted(by: { $0.id < $1.id }) {
            states.append(String(child.id), ["type": .string(child.type.name), "revision": .int(child.revision),
                                             "state": .object(child.state())])
            for member in child.descendantStates().members { states.append(member.key, member.value) }
        }
        return states
    }

    /// Runs a read of every observed member: the children it no longer meets are closed after it.
    private func fullRead(_ body: () -> Void) {
        guard type.hasChildren else { return body() }
        childrenSeen.removeAll(keepingCapacity: true)
        body()
        for (identity, child) in children where !childrenSeen.contains(identity) {
            children[identity] = nil
            table?.close(child.id)
            childrenClosed.append(child.id)
        }
    }

    /// The children opened since last asked — each with its state, and its own new children, by
    /// session id — and the ids of those closed.
    public func takeChildrenNews() -> (opened: JSONObject, closed: [Int]) {
        guard !childrenOpened.isEmpty || !childrenClosed.isEmpty else { return ([:], []) }
        var opened = JSONObject()
        let closed = childrenClosed
        let new = childrenOpened
        childrenOpened = []
        childrenClosed = []
        for child in new where !child.isClosed {
            let state = child.state()
            opened.append(String(child.id), ["type": .string(child.type.name), "revision": .int(child.revision),
                                             "state": .object(state)])
            let (grandchildren, _) = child.takeChildrenNews()
            for member in grandchildren.members { opened.append(member.key, member.value) }
        }
        return (opened, closed.filter { id in !new.contains { $0.id == id } })
    }

    // MARK: Commands

    /// Counts a command run as started; returns its number, for ``track(task:number:)`` and ``endRunning(command:number:)``.
    func beginRunning(command: Int) -> Int {
        runningCounts[command] += 1
        markDirty()
        nextTaskNumber += 1
        runningTasks[nextTaskNumber] = .some(nil)
        runningCauses[nextTaskNumber] = ChangeCause.scope
        return nextTaskNumber
    }

    /// Keeps a running command's task so that closing the session can cancel it; a run that
    /// already ended (it never suspended) is not kept.
    func track(task: Task<Void, Never>, number: Int) {
        if runningTasks[number] != nil { runningTasks[number] = .some(task) }
    }

    func endRunning(command: Int, number: Int) {
        runningCounts[command] -= 1
        runningTasks[number] = nil
        runningCauses[number] = nil
        markDirty()
    }
}
