import Dispatch

/// A clock that moves only when told to: ``advance(by:)`` runs everything that falls due, in order.
///
/// Sleepers wake in order of their due time, ties in the order they went to sleep. After waking
/// each one, the clock lets the main actor run the woken task up to its next suspension before it
/// wakes the next, so a timer that re-arms itself, or a command that finishes, does so in its turn.
/// "Next suspension" means its next sleep on this clock or its end: the clock waits for either
/// (see ``currentTaskWillEnd()``), however many hops the task takes in between.
@MainActor
public final class VirtualClock: BinderyClock {
    public private(set) var now = 0
    private var sleepers: [Sleeper] = []
    private var nextTicket = 0
    /// Tasks woken by ``advance(by:)`` that have neither slept again nor ended.
    private var awakeTasks: Set<Int> = []
    /// Every virtual clock alive, for ``currentTaskWillEnd()``.
    private static var live: [WeakClock] = []

    private struct WeakClock {
        weak var value: VirtualClock?
    }

    private struct Sleeper {
        let due: Int
        let ticket: Int
        let task: Int?
        let continuation: CheckedContinuation<Void, any Error>
    }

    public init() {
        Self.live.removeAll { $0.value == nil }
        Self.live.append(WeakClock(value: self))
    }

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { sleepers.count }

    public func sleep(milliseconds: Int) async throws {
        nextTicket += 1
        let ticket = nextTicket
        let due = now + max(0, milliseconds)
        let task = currentTaskKey()
        if let task { awakeTasks.remove(task) }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    sleepers.append(Sleeper(due: due, ticket: ticket, task: task, continuation: continuation))
                }
            }
        } onCancel: {
            runOnMainActor { [weak self] in self?.wake(ticket: ticket, throwing: CancellationError()) }
        }
    }

    /// Tells the clock that the current task is ending, so ``advance(by:)`` need not wait for it to
    /// sleep again. Bindery calls it for commands and session tasks.
    public static func currentTaskWillEnd() {
        guard let task = currentTaskKey() else { return }
        for clock in live { clock.value?.awakeTasks.remove(task) }
    }

    /// Moves time forward by `milliseconds`, waking every sleeper that falls due on the way, in order.
    public func advance(by milliseconds: Int) async {
        let target = now + max(0, milliseconds)
        while let index = nextDueIndex(notAfter: target) {
            let sleeper = sleepers.remove(at: index)
            now = sleeper.due
            if let task = sleeper.task { awakeTasks.insert(task) }
            sleeper.continuation.resume()
            // Run the woken task to its next sleep or its end before waking the next one.
            await settleMainActor(until: { awakeTasks.isEmpty }, maximumRounds: 10_000)
        }
        now = target
    }

    private func nextDueIndex(notAfter target: Int) -> Int? {
        var best: Int?
        for (index, sleeper) in sleepers.enumerated() where sleeper.due <= target {
            if let current = best, (sleepers[current].due, sleepers[current].ticket) < (sleeper.due, sleeper.ticket) {
                continue
            }
            best = index
        }
        return best
    }

    private func wake(ticket: Int, throwing error: any Error) {
        guard let index = sleepers.firstIndex(where: { $0.ticket == ticket }) else { return }
        sleepers.remove(at: index).continuation.resume(throwing: error)
    }
}

/// Lets other main-actor jobs run until `isSettled` holds, or `maximumRounds` round trips through
/// the main queue have passed (a safety net for work that never settles, so input is never held
/// forever). The main queue runs jobs in the order they were queued, so each round trip lets
/// everything queued before it run.
@MainActor
public func settleMainActor(until isSettled: () -> Bool = { false }, maximumRounds: Int = 3) async {
    var rounds = 0
    while rounds < maximumRounds, !isSettled() {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
        rounds += 1
    }
}

/// Identifies the current task while it runs, for matching a sleeper with its next sleep or its end.
private func currentTaskKey() -> Int? {
    withUnsafeCurrentTask { $0?.hashValue }
}
