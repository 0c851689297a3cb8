import Observation

/// One live view model instance driven by a client, and what that client has been told about it.
///
/// The session keeps, per observed member, the last value sent to the client. A member is marked
/// dirty when the Observation machinery reports a change to anything its value was computed from;
/// ``collectChanges()`` re-reads only dirty members, keeps those that differ from what was sent,
/// and counts one revision for the lot.
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

    /// Per member, in one allocation: a session's footprint matters when a client opens thousands.
    private var members: [MemberState]
    private var dirtyMembers: [Int] = []
    private var runningCounts: [Int]
    /// Runs of async commands under way, by number; the task is nil until ``track(task:number:)``.
    private var runningTasks: [Int: Task<Void, Never>?] = [:]
    /// Work started by the factory with `OpenContext.task`, cancelled at close.
    private var ownedTasks: [Task<Void, Never>] = []
    private var nextTaskNumber = 0
    private weak var table: SessionTable?

    init(id: Int, type: ViewModelType, model: AnyObject, observing names: [String]?, key: String?,
         table: SessionTable) {
        self.id = id
        self.type = type
        self.key = key
        self.model = model
        self.table = table
        let count = type.members.count
        members = Array(repeating: MemberState(isObserved: names == nil), count: count)
        runningCounts = Array(repeating: 0, count: type.commands.count)
        for name in names ?? [] {
            if let index = type.memberIndex(named: name) { members[index].isObserved = true }
        }
        for index in 0..<count where members[index].isObserved {
            members[index].lastSent = arm(index)
        }
    }

    /// The current value of every observed member, in declaration order.
    public func state() -> JSONObject {
        var state = JSONObject(minimumCapacity: members.count)
        for index in members.indices where members[index].isObserved {
            state.append(type.memberNames[index], read(index))
        }
        return state
    }

    /// Narrows (or widens) what the client is told about to `names`; returns the state of that set.
    /// Unknown names must have been rejected by the caller.
    public func observe(_ names: [String]) -> JSONObject {
        let wanted = Set(names.compactMap(type.memberIndex(named:)))
        for index in members.indices {
            let isWanted = wanted.contains(index)
            if isWanted, !members[index].isObserved { members[index].lastSent = arm(index) }
            if !isWanted { members[index].lastSent = nil }
            members[index].isObserved = isWanted
        }
        return state()
    }

    /// Stores a client's value in a field. What the client wrote is recorded as sent, so it is not
    /// echoed back unless the model ends up holding something else — a value the model changed, or
    /// one its type could not hold exactly (16777217 in a Float).
    public func setField(_ name: String, to value: JSONValue) throws(SessionError) {
        guard let index = type.memberIndex(named: name) else {
            throw .unknownField(name, known: type.memberNames)
        }
        guard case .property(let property) = type.members[index], let write = type.properties[property].write else {
            throw .readOnlyField(name)
        }
        do {
            try write(model, value)
        } catch {
            throw .wrongValueType(field: name, error)
        }
        if members[index].isObserved { members[index].lastSent = value }
    }

    /// Re-reads the dirty members; returns those whose value differs from what was last sent, and
    /// counts a new revision if there are any.
    public func collectChanges() -> JSONObject? {
        guard !dirtyMembers.isEmpty else { return nil }
        // Swapped out, so that a member marked while these are re-read waits for the next
        // collection; the buffer is handed back afterwards to save an allocation per turn.
        var pending: [Int] = []
        swap(&pending, &dirtyMembers)
        pending.sort()
        defer {
            if dirtyMembers.isEmpty {
                pending.removeAll(keepingCapacity: true)
                dirtyMembers = pending
            }
        }
        pendingCause = nil
        var changes = JSONObject()
        for index in pending {
            members[index].isDirty = false
            guard members[index].isObserved, !isClosed else { continue }
            let value = arm(index)
            if !(members[index].lastSent.map { value.isSameValue(as: $0) } ?? false) {
                members[index].lastSent = value
                changes.append(type.memberNames[index], value)
            }
        }
        guard !changes.isEmpty else { return nil }
        revision += 1
        return changes
    }

    /// Whether an async command of this session is still running.
    public var hasRunningCommands: Bool { !runningTasks.isEmpty }

    func own(_ tasks: [Task<Void, Never>]) {
        ownedTasks += tasks
    }

    /// Cancels the session's running commands and tasks; later changes of its model are ignored.
    func close() {
        isClosed = true
        for task in runningTasks.values { task?.cancel() }
        for task in ownedTasks { task.cancel() }
        ownedTasks.removeAll()
        dirtyMembers.removeAll()
    }

    // MARK: Reading and tracking

    private func read(_ index: Int) -> JSONValue {
        switch type.members[index] {
        case .property(let property): type.properties[property].read(model)
        case .enabled(let command): .bool(type.commands[command].isEnabled?(model) ?? true)
        case .running(let command): .bool(runningCounts[command] > 0)
        }
    }

    /// Reads a member while registering for the next change of anything the read touched.
    private func arm(_ index: Int) -> JSONValue {
        if case .running = type.members[index] { return read(index) }
        return withObservationTracking {
            read(index)
        } onChange: { [weak self] in
            runOnMainActor { self?.markDirty(index) }
        }
    }

    func markDirty(_ index: Int) {
        guard !members[index].isDirty, !isClosed else { return }
        members[index].isDirty = true
        if dirtyMembers.isEmpty {
            pendingCause = ChangeCause.current
            table?.sessionBecameDirty(self)
        }
        dirtyMembers.append(index)
    }

    // MARK: Commands

    /// Counts a command run as started; returns its number, for ``track(task:number:)`` and ``endRunning(command:number:)``.
    func beginRunning(command: Int) -> Int {
        runningCounts[command] += 1
        markDirty(type.runningMemberIndex(ofCommand: command))
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
        markDirty(type.runningMemberIndex(ofCommand: command))
    }
}

/// What a session knows of one member of its state.
private struct MemberState {
    var isObserved: Bool
    var isDirty = false
    /// The value the client was last told, or wrote itself; nil while not observed.
    var lastSent: JSONValue?

    init(isObserved: Bool) { self.isObserved = isObserved }
}
