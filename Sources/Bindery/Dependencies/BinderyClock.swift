/// Time, as a view model may use it: injected, so that tests and transcripts can control it.
///
/// `binderyd` gives view models a ``SystemClock``; with `--deterministic` a ``VirtualClock`` that
/// moves only when a client sends `clock/advance`. A view model never calls `Task.sleep` itself.
@MainActor
public protocol BinderyClock: AnyObject {
    /// Milliseconds since the clock was made.
    var now: Int { get }
    /// Suspends the current task for `milliseconds`; throws `CancellationError` if it is cancelled.
    func sleep(milliseconds: Int) async throws
}

/// The real clock.
@MainActor
public final class SystemClock: BinderyClock {
    private let start = ContinuousClock.now

    public init() {}

    public var now: Int {
        let elapsed = ContinuousClock.now - start
        return Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
    }

    public func sleep(milliseconds: Int) async throws {
        try await Task.sleep(for: .milliseconds(milliseconds))
    }
}
