#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A `Clock` that moves only when told to: ``advance(by:)`` runs everything that falls due, in order.
///
/// View models sleep on it like on any clock (`try await clock.sleep(for: .seconds(2))`). The clock
/// knows the tasks Bindery starts for commands and sessions (see ``run(_:)``) and, before waking
/// anything and after each wake-up, waits until every one of them is asleep on it or has ended: so
/// a timer that re-arms itself, or a command that finishes, does so before the next sleeper wakes,
/// and an advance sees a sleep that a command began just before it, even though `Clock.sleep` runs
/// off the main actor. Sleepers due at the same instant wake in the order their tasks started.
///
/// The clock's range is 0 to `Int.max` milliseconds (292 million years); deadlines beyond it
/// saturate at its end. One advance wakes at most ``maximumWakeUps`` sleepers one by one; past that
/// it coalesces, like a real timer after a machine slept: every sleeper due by the target wakes once,
/// at the target.
///
/// Thread-safe: sleeps may come from any thread; ``advance(by:)`` runs on the main actor.
public final class VirtualClock: Clock, Sendable {
    /// A point on the virtual clock: the time since it started.
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration

        public init(offset: Duration) { self.offset = offset }

        /// The clock's last instant.
        public static let end = Instant(offset: .milliseconds(Int.max))

        /// Saturating at zero and at ``end``: no deadline a view model computes can trap.
        public func advanced(by duration: Duration) -> Instant {
            if duration > .zero, duration >= Instant.end.offset - offset { return .end }
            return Instant(offset: max(.zero, offset + duration))
        }

        public func duration(to other: Instant) -> Duration { other.offset - offset }

        public static func < (left: Instant, right: Instant) -> Bool { left.offset < right.offset }

        /// Whole milliseconds since the clock started.
        public var milliseconds: Int {
            let (seconds, attoseconds) = offset.components
            return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        }
    }

    /// How many sleepers one ``advance(by:)`` wakes one by one before it coalesces the rest.
    public static let maximumWakeUps = 10_000

    /// The number of a task the clock waits for, inherited by what it awaits.
    @TaskLocal static var taskNumber: Int?

    private struct Sleeper {
        let due: Instant
        /// The order of sleepers due at the same instant: their task's number, then arrival.
        let order: (task: Int, ticket: Int)
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextTicket = 0
        var nextTaskNumber = 0
        /// Tasks the clock knows that are neither asleep on it nor ended.
        var awake: Set<Int> = []
        /// An advance waiting for every known task to sleep or end.
        var settleWaiter: CheckedContinuation<Void, Never>?
        var settleGeneration = 0

        mutating func takeWaiterIfSettled() -> CheckedContinuation<Void, Never>? {
            guard awake.isEmpty, let waiter = settleWaiter else { return nil }
            settleWaiter = nil
            return waiter
        }
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .zero }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let task = Self.taskNumber
        let ticket = state.withLock { state in
            state.nextTicket += 1
            return state.nextTicket
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (settled, cancelled) = state.withLock { state in
                    if let task { state.awake.remove(task) }
                    let cancelled = Task.isCancelled
                    if !cancelled {
                        let order = (task: task ?? Int.max, ticket: ticket)
                        state.sleepers.append(Sleeper(due: max(deadline, state.now), order: order,
                                                      continuation: continuation))
                    }
                    return (state.takeWaiterIfSettled(), cancelled)
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                settled?.resume()
            }
        } onCancel: {
            // Woken by its cancellation: awake again, so an advance waits for it to unwind.
            let sleeper = state.withLock { state in
                let sleeper = state.sleepers.firstIndex { $0.order.ticket == ticket }.map { state.sleepers.remove(at: $0) }
                if sleeper != nil, let task { state.awake.insert(task) }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Runs `body` as a task the clock waits for: an advance neither starts nor goes on while it is
    /// running and not asleep on this clock. Bindery runs commands and session tasks this way.
    @MainActor
    public func run(_ body: @escaping @MainActor () async -> Void) -> Task<Void, Never> {
        let number = state.withLock { state in
            state.nextTaskNumber += 1
            state.awake.insert(state.nextTaskNumber)
            return state.nextTaskNumber
        }
        return Self.$taskNumber.withValue(number) {
            Task { @MainActor in
                await body()
                self.taskEnded(number)
            }
        }
    }

    /// Like ``run(_:)``, for a task the caller starts itself (`Task.immediate`): call
    /// ``taskEnded(_:)`` with the number when it ends.
    public func beginTask() -> Int {
        state.withLock { state in
            state.nextTaskNumber += 1
            state.awake.insert(state.nextTaskNumber)
            return state.nextTaskNumber
        }
    }

    public func taskEnded(_ number: Int) {
        let settled = state.withLock { state in
            state.awake.remove(number)
            return state.takeWaiterIfSettled()
        }
        settled?.resume()
    }

    /// Moves time forward by `duration`, waking every sleeper that falls due on the way, in order,
    /// and letting each run until it sleeps again or ends before waking the next.
    @MainActor
    public func advance(by duration: Duration) async {
        await settle()
        let target = now.advanced(by: duration)
        var wakeUps = 0
        while let sleeper = takeNextSleeper(dueBy: target, coalescing: wakeUps >= Self.maximumWakeUps) {
            sleeper.continuation.resume()
            wakeUps += 1
            await settle()
            // A task the clock does not know (a view model's own) runs on to its next sleep before
            // the next sleeper is chosen, when its jobs run on the main actor (SerialJobs).
            if SerialJobs.isOn { await SerialJobs.settle(yields: 10) }
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    /// Removes the sleeper due first (by due time, then order) if it is due by `target`, moves the
    /// clock to its due time (or to `target` when coalescing) and counts its task as awake.
    private func takeNextSleeper(dueBy target: Instant, coalescing: Bool) -> Sleeper? {
        state.withLock { state in
            var best: Int?
            for index in state.sleepers.indices where state.sleepers[index].due <= target {
                guard let current = best else { best = index; continue }
                let (a, b) = (state.sleepers[index], state.sleepers[current])
                if (a.due, a.order.task, a.order.ticket) < (b.due, b.order.task, b.order.ticket) { best = index }
            }
            guard let best else { return nil }
            let sleeper = state.sleepers.remove(at: best)
            state.now = coalescing ? target : sleeper.due
            if sleeper.order.task != Int.max { state.awake.insert(sleeper.order.task) }
            return sleeper
        }
    }

    /// Waits until every task the clock knows is asleep on it or has ended. A task that waits for
    /// something other than this clock would hold the advance for ever: after ``settleTimeout`` of
    /// real time the tasks still awake are no longer waited for, and the log says so.
    @MainActor
    private func settle() async {
        let generation = state.withLock { state -> Int in
            state.settleGeneration += 1
            return state.settleGeneration
        }
        let watchdog = Task { [weak self] in
            try? await Task.sleep(for: Self.settleTimeout)
            guard !Task.isCancelled else { return }
            self?.giveUpWaiting(generation: generation)
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let settledAlready = state.withLock { state -> Bool in
                guard !state.awake.isEmpty else { return true }
                state.settleWaiter = continuation
                return false
            }
            if settledAlready { continuation.resume() }
        }
        watchdog.cancel()
    }

    /// How long an advance waits, in real time, for a task that neither sleeps on the clock nor ends.
    public static let settleTimeout = Duration.seconds(5)

    private func giveUpWaiting(generation: Int) {
        let (waiter, tasks) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Int) in
            guard state.settleGeneration == generation, let waiter = state.settleWaiter else { return (nil, 0) }
            let count = state.awake.count
            state.awake.removeAll()
            state.settleWaiter = nil
            return (waiter, count)
        }
        guard let waiter else { return }
        StandardStreams.log("bindery: error: the virtual clock stopped waiting for \(tasks) task(s) that neither slept on it nor ended")
        waiter.resume()
    }
}
