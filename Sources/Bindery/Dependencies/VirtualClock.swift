import Dispatch

/// A clock that moves only when told to: ``advance(by:)`` runs everything that falls due, in order.
///
/// Sleepers wake in order of their due time, ties in the order they went to sleep. After waking
/// each one, the clock lets the main actor run the woken task up to its next suspension before it
/// wakes the next, so a timer that re-arms itself, or a command that finishes, does so in its turn.
/// This assumes what Bindery's view models do: between sleeps they run on the main actor and wait
/// on nothing but this clock.
@MainActor
public final class VirtualClock: BinderyClock {
    public private(set) var now = 0
    private var sleepers: [Sleeper] = []
    private var nextTicket = 0

    private struct Sleeper {
        let due: Int
        let ticket: Int
        let continuation: CheckedContinuation<Void, any Error>
    }

    public init() {}

    /// How many tasks are asleep on this clock.
    public var sleeperCount: Int { sleepers.count }

    public func sleep(milliseconds: Int) async throws {
        nextTicket += 1
        let ticket = nextTicket
        let due = now + max(0, milliseconds)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    sleepers.append(Sleeper(due: due, ticket: ticket, continuation: continuation))
                }
            }
        } onCancel: {
            runOnMainActor { [weak self] in self?.wake(ticket: ticket, throwing: CancellationError()) }
        }
    }

    /// Moves time forward by `milliseconds`, waking every sleeper that falls due on the way, in order.
    public func advance(by milliseconds: Int) async {
        let target = now + max(0, milliseconds)
        while let index = nextDueIndex(notAfter: target) {
            let sleeper = sleepers.remove(at: index)
            now = sleeper.due
            sleeper.continuation.resume()
            await settleMainActor()
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

/// Lets the jobs already queued on the main actor (a task just woken or cancelled, and what it
/// queues in turn) run before the caller goes on. The main queue runs jobs in the order they were
/// queued, so three round trips through it let a woken task run to its next suspension even when it
/// hops a couple of times on the way.
@MainActor
public func settleMainActor() async {
    for _ in 0..<3 {
        await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume() }
        }
    }
}
