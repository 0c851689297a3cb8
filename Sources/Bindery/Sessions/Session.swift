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
    /// Counts the change sets sent: 0 at open, one more per ``collectChanges()`` that found any.
    public private(set) var revision = 0
    public private(set) var isClosed = false
    /// The request that caused the first pending change, if any.
    public private(set) var pendingCause: RequestID?

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
    /// Work started by the factory with `OpenContext.task`, cancelled at close.
    private var ownedTasks: [Task<Void, Never>] = []
    private var nextTaskNumber = 0
    private(set) weak var table: SessionTable?

    init(id: Int, type: ViewModelType, model: AnyObject, observing names: [String]?, key: String?,
         table: SessionTable) {
        self.id = id
        self.type = type
        self.key = key
        self.model = model
        self.table = table
        runningCounts = Array(repeating: 0, count: type.commands.count)
        lastSent = Array(repeating: nil, count: type.members.count)
        let observed = names.map { Set($0.compactMap(type.memberIndex(named:))) }
        for index in type.members.indices where observed?.contains(index) ?? true {
            lastSent[index] = .null  // observed; the real value comes from the first tracked read
        }
        tracking = SessionTracking(cancellable: table.needsCancellableTracking(type)) { [weak self] in self?.markDirty() }
        rearm { index, value in lastSent[index] = value }
    }

    /// The current value of every observed member, in declaration order.
    public func state() -> JSONObject {
        var state = JSONObject(minimumCapacity: lastSent.count)
        for index in lastSent.indices where lastSent[index] != nil {
            state.append(type.memberNames[index], read(index))
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
        do {
            try write(model, value)
        } catch {
            throw .wrongValueType(field: name, error)
        }
        let after = read(index)
        if !after.isSameValue(as: before), let clock = table?.elapsed {
            history.recordWrite(property: property, before: before, after: after, at: clock())
        }
        if after.isSwiftEqual(to: before), !after.isSameValue(as: before) {
            // The setter saw "no change" by Swift's `==` and told Observation nothing, yet the model
            // now holds another value (-0.0 for 0, "e\u{301}" for "\u{E9}"): what was derived from it
            // may differ too. Re-read everything rather than leave the client believing the old.
            mustTrackAgain = true
            markDirty()
        }
        guard lastSent[index] != nil else { return false }
        lastSent[index] = value
        if !after.isSameValue(as: value) { markDirty() }
        return after.isSameValue(as: value) && !after.isSameValue(as: before)
    }

    /// Counts a revision for changes a host sends that no collection found: a value one client
    /// wrote (not echoed to it, so in no change set) that the session's other clients must be told.
    public func advanceRevision() {
        revision += 1
    }

    /// What one collection found: members sent whole, and lists sent as splices (by member name:
    /// `{ops: [{at, delete, insert}], length}`). A member is in one or the other.
    public struct ChangeSet {
        public var changes = JSONObject()
        public var splices = JSONObject()
        public var isEmpty: Bool { changes.isEmpty && splices.isEmpty }
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
        pendingCause = nil
        var found = ChangeSet()
        reread { index, value in
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
            found.changes.append(name, value)
        }
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
    /// hands each value to `body`.
    private func rearm(_ body: (Int, JSONValue) -> Void) {
        mustTrackAgain = false
        tracking.track {
            for index in lastSent.indices where lastSent[index] != nil {
                body(index, read(index))
            }
        }
    }

    func markDirty() {
        guard !isDirty, !isClosed else { return }
        isDirty = true
        pendingCause = ChangeCause.current
        table?.sessionBecameDirty(self)
    }

    // MARK: Commands

    /// Counts a command run as started; returns its number, for ``track(task:number:)`` and ``endRunning(command:number:)``.
    func beginRunning(command: Int) -> Int {
        runningCounts[command] += 1
        markDirty()
        nextTaskNumber += 1
        runningTasks[nextTaskNumber] = .some(nil)
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
        markDirty()
    }
}
