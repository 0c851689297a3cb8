import Bindery
import Testing

/// One view model opened in-process, driven step by step the way a client would, with every change
/// it pushes asserted exhaustively — the spirit of TCA's `TestStore`, for Bindery view models.
///
/// ```swift
/// @MainActor @Test func emailValidatesAsYouType() async throws {
///     let form = try TestSession { _ in EmailViewModel() }
///     try await form.set("email", "ada@example.com") {
///         $0["isValid"] = true
///         $0["validationMessage"] = "Email is valid"
///     }
/// }
/// ```
///
/// Each step (``set(_:_:assert:)``, ``invoke(_:assert:)``, ``advance(by:assert:)``) runs, collects
/// every `didChange` the step caused, and compares the state the client then holds with what the
/// step's closure says it should be, starting from the state before the step. A member that changed
/// but was not asserted, or was asserted but did not change, fails the test with a diff. Changes
/// that happen between steps (a timer on a live clock) must be asserted with ``receive(assert:)``.
///
/// Dependencies are the deterministic ones (a ``VirtualClock`` moved only by ``advance(by:assert:)``,
/// seeded randomness, sequential ids), with your own put in place first if you like; two sessions
/// given the same `Dependencies` share their stores, as two sessions of one daemon do (a change one
/// makes reaches the other between its steps: assert it there with ``receive(assert:)``).
/// Main actor only, like the view model.
@MainActor
public final class TestSession<Model: ViewModel> {
    /// The view model itself, for assertions beyond its exposed state.
    public let model: Model
    /// What a client holds: the state at open, with every change since folded in.
    public private(set) var state: JSONObject
    /// What a client holds of each child view model's session (see protocol.md, "Child view
    /// models"), by session id: its state at first sight, with its changes folded in. Children's
    /// changes are not part of a step's assertion; read them here.
    public private(set) var children: [Int: JSONObject] = [:]
    /// Every change set pushed so far, in order: one per turn that changed something.
    public private(set) var changeSets: [JSONObject] = []
    public let dependencies: Dependencies
    private let table: SessionTable
    private let session: Session
    /// Change sets pushed outside a step (deferred), not yet asserted.
    private var unasserted: [JSONObject] = []
    private let report: (String, SourceLocation) -> Void
    private let openedAt: SourceLocation

    /// Opens a session of the view model `make` returns.
    /// - Parameters:
    ///   - type: the name the session is opened under (only for messages).
    ///   - arguments: the `args` of `session/open`, handed to `make` in its context.
    ///   - dependencies: deterministic by default; make one yourself to put your own values in place
    ///     (`dependencies[UserAPIKey.self] = FakeAPI()`) or to share stores between sessions.
    ///   - reportFailure: where failures go; Swift Testing's `Issue.record` by default (a test of
    ///     this harness passes its own to see them).
    ///   - make: builds the model, like a registry factory.
    public init(_ type: String = String(describing: Model.self), arguments: JSONObject = [:],
                dependencies: Dependencies = .deterministic(),
                reportFailure: ((String, SourceLocation) -> Void)? = nil,
                sourceLocation: SourceLocation = #_sourceLocation,
                make: @escaping @MainActor (OpenContext) throws -> Model) throws {
        openedAt = sourceLocation
        var registry = ViewModelRegistry()
        var made: Model?
        registry.register(type) { context in
            let model = try make(context)
            made = model
            return model
        }
        self.dependencies = dependencies
        table = SessionTable(registry: registry, dependencies: dependencies)
        session = try table.open(registry.type(named: type)!, arguments: arguments, observing: nil)
        model = made!
        state = session.state()
        for (id, child) in session.takeChildrenNews().opened.members {
            children[Int(id)!] = child["state"]?.objectValue
        }
        report = reportFailure ?? { message, location in Issue.record(Comment(rawValue: message), sourceLocation: location) }
        table.onDeferredChanges = { [weak self] in self?.collectDeferred() }
    }

    /// The virtual clock the model sleeps on.
    public var clock: VirtualClock { dependencies.clock as! VirtualClock }

    // MARK: Steps

    /// Writes a field as `setField` does, and asserts what it changed.
    public func set<Value>(_ field: String, _ value: Value, sourceLocation: SourceLocation = #_sourceLocation,
                           assert expected: (inout JSONObject) -> Void = { _ in }) throws {
        let json = WireForm.json(value)
        try step("set \(field)", sourceLocation, expected) {
            try session.setField(field, to: json)
            // The client holds what it wrote (no echo); a change set may then say otherwise.
            if state[field] != nil { state[field] = json }
        }
    }

    /// Invokes a command of a child view model's session (an id from ``children``), and asserts
    /// what its first turn changed in this session's own state.
    @discardableResult
    public func invoke(_ command: String, inChild child: Int, args: JSONValue? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                       assert expected: (inout JSONObject) -> Void = { _ in }) throws -> TestInvocation {
        guard let childSession = table.session(child), children[child] != nil else {
            throw SessionError.unknownCommand(command, known: [])
        }
        let invocation = TestInvocation()
        try step("invoke \(command) in child \(child)", sourceLocation, expected) {
            invocation.task = try childSession.invoke(command, arguments: args) { outcome in
                invocation.outcome = outcome
            }
        }
        return invocation
    }

    /// Invokes a command as `invoke` does and asserts what its first turn changed. A sync command's
    /// result is there at once; an async one's when it ends (after ``advance(by:assert:)``, say).
    @discardableResult
    public func invoke(_ command: String, args: JSONValue? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                       assert expected: (inout JSONObject) -> Void = { _ in }) throws -> TestInvocation {
        let invocation = TestInvocation()
        try step("invoke \(command)", sourceLocation, expected) {
            invocation.task = try session.invoke(command, arguments: args) { outcome in
                invocation.outcome = outcome
            }
        }
        return invocation
    }

    /// Moves the virtual clock, running what falls due, and asserts what all of it changed.
    public func advance(by duration: Duration, sourceLocation: SourceLocation = #_sourceLocation,
                        assert expected: (inout JSONObject) -> Void = { _ in }) async {
        checkNothingUnasserted(before: "advance", sourceLocation)
        let before = state
        let start = changeSets.count
        // Tasks the view model started by itself (a debounce) first reach their sleeps, so that the
        // clock moves from where they began sleeping.
        await settleOwnTasks()
        await clock.advance(by: duration)
        await settleOwnTasks()
        collect(into: &unasserted)
        absorbUnasserted()
        verify("advance by \(duration)", from: before, changedIn: start, expected, sourceLocation)
    }

    /// Lets the tasks a view model started by itself (a debounce's `Task { … }`) reach their next
    /// sleep on the clock before it moves: until the number of sleepers has held still for a while
    /// (their sleeps hop off the main actor, so there is no event to wait for). A global hook that
    /// runs every job on the main actor would make this exact, but it would reach every other test
    /// of the process too, and one that blocks the main thread would then starve them.
    private func settleOwnTasks() async {
        var last = -1, still = 0
        for _ in 0..<200 where still < 3 {
            for _ in 0..<10 { await Task.yield() }
            let count = clock.sleeperCount
            still = count == last ? still + 1 : 0
            last = count
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Asserts changes that happened between steps (a timer on a real clock, a task's later step).
    public func receive(sourceLocation: SourceLocation = #_sourceLocation, assert expected: (inout JSONObject) -> Void) {
        let before = state
        let start = changeSets.count
        collect(into: &unasserted)
        absorbUnasserted()
        verify("receive", from: before, changedIn: start, expected, sourceLocation)
    }

    /// Fails if changes were pushed that no step asserted. A session does this by itself when it
    /// goes away; call it to check earlier.
    public func finish(sourceLocation: SourceLocation = #_sourceLocation) {
        collect(into: &unasserted)
        checkNothingUnasserted(before: "the end of the test", sourceLocation)
    }

    isolated deinit {
        finish(sourceLocation: openedAt)
        table.close(session.id)
    }

    // MARK: Machinery

    private func step(_ name: String, _ location: SourceLocation, _ expected: (inout JSONObject) -> Void,
                      _ body: () throws -> Void) throws {
        checkNothingUnasserted(before: name, location)
        let before = state
        let start = changeSets.count
        table.isInTurn = true
        defer { table.isInTurn = false }
        try body()
        var sets: [JSONObject] = []
        collect(into: &sets)
        for set in sets { fold(set) }
        verify(name, from: before, changedIn: start, expected, location)
    }

    private func collectDeferred() { collect(into: &unasserted) }

    private func collect(into sets: inout [JSONObject]) {
        for (changed, _, found) in table.collectChangeSets() {
            for (id, child) in found.children.members { children[Int(id)!] = child["state"]?.objectValue }
            for id in found.detached { children[id] = nil }
            if changed === session {
                sets.append(found.changes)
            } else if children[changed.id] != nil {
                for (name, value) in found.changes.members { children[changed.id]![name] = value }
            }
        }
    }

    private func absorbUnasserted() {
        for set in unasserted { fold(set) }
        unasserted.removeAll()
    }

    private func fold(_ changes: JSONObject) {
        changeSets.append(changes)
        for (name, value) in changes.members { state[name] = value }
    }

    private func checkNothingUnasserted(before what: String, _ location: SourceLocation) {
        guard !unasserted.isEmpty else { return }
        report("\(unasserted.count) change set(s) were pushed before \(what) and not asserted "
               + "(use receive): \(unasserted.map(describe).joined(separator: "; "))", location)
        absorbUnasserted()
    }

    private func verify(_ step: String, from before: JSONObject, changedIn start: Int,
                        _ expected: (inout JSONObject) -> Void, _ location: SourceLocation) {
        var wanted = before
        expected(&wanted)
        guard !sameState(wanted, state) else { return }
        var lines = ["\(step): the state differs from what the test expects (− expected, + actual):"]
        for name in Set(wanted.keys + state.keys).sorted(by: { order(of: $0) < order(of: $1) }) {
            let want = wanted[name], got = state[name]
            guard !same(want, got) else { continue }
            lines.append("  − \(name): \(want.map(describe) ?? "(absent)")")
            lines.append("  + \(name): \(got.map(describe) ?? "(absent)")")
        }
        let pushed = changeSets[start...]
        lines.append("  pushed: " + (pushed.isEmpty ? "nothing" : pushed.map(describe).joined(separator: "; ")))
        report(lines.joined(separator: "\n"), location)
    }

    private func order(of name: String) -> Int { session.type.memberIndex(named: name) ?? Int.max }

    private func sameState(_ left: JSONObject, _ right: JSONObject) -> Bool {
        left.count == right.count && left.keys.allSatisfy { same(left[$0], right[$0]) }
    }

    private func same(_ left: JSONValue?, _ right: JSONValue?) -> Bool {
        switch (left, right) {
        case (nil, nil): true
        case (let left?, let right?): left.isSameValue(as: right)
        default: false
        }
    }

    private func describe(_ value: JSONValue) -> String { String(decoding: JSONWriter.bytes(value), as: UTF8.self) }
    private func describe(_ object: JSONObject) -> String { describe(.object(object)) }
}

/// An invocation started by ``TestSession/invoke(_:args:sourceLocation:assert:)``.
@MainActor
public final class TestInvocation {
    var task: Task<Void, Never>?
    var outcome: Session.InvokeOutcome?

    /// Whether the command has answered.
    public var isFinished: Bool { outcome != nil }

    /// What the command returned; throws what it threw, or `CancellationError` if it was cancelled.
    /// Fails (throws) if it is still running: advance the clock first.
    public func result() throws -> JSONValue {
        switch outcome {
        case .returned(let value): return value ?? .null
        case .failed(let error): throw error
        case .cancelled: throw CancellationError()
        case .rejected(let error): throw error
        case nil: throw StillRunning()
        }
    }

    /// Cancels the command, as `$/cancelRequest` does.
    public func cancel() { task?.cancel() }

    /// The command had not answered yet.
    public struct StillRunning: Error {}
}
