import CSwiftRuntime

/// Runs every job the Swift runtime would send to its global executor on the main actor instead:
/// then the tasks a view model starts by itself (a debounce's `Task { … }`, a `nonisolated async`
/// method, a sleep that hops off the main actor) make progress only when the main actor is free, in
/// one order, and a virtual clock advanced meanwhile sees every sleep they begin. A `--deterministic`
/// daemon runs so for its whole life (TCA's tests use the same runtime hook). `TestSession` does
/// not: the hook reaches every test of the process, and one that blocks the main thread waiting for
/// a job of its own would starve. A transcript's replay in a test does, for its duration only
/// (``during(_:)``; see BinderyTesting's `Transcript.replay`).
@MainActor
public enum SerialJobs {
    /// Whether global jobs run on the main actor for good (a `--deterministic` daemon).
    public private(set) static var isForLife = false
    /// Scopes of ``during(_:)`` running now.
    private static var scopes = 0

    /// Whether global jobs run on the main actor now: then a virtual clock lets a task it does not
    /// know run on to its next sleep after each wake-up, so one advance carries a debounce and the
    /// call after it.
    public static var isOn: Bool { isForLife || scopes > 0 }

    /// Global jobs on the main actor while `body` runs (scopes may overlap), then as before. Jobs
    /// already queued on the main actor when it ends run there; later ones go to the pool again.
    public static func during<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        scopes += 1
        if scopes == 1, !isForLife { bindery_run_global_jobs_on_main(1) }
        defer {
            scopes -= 1
            if scopes == 0, !isForLife { bindery_run_global_jobs_on_main(0) }
        }
        return try await body()
    }

    /// Global jobs on the main actor from now on, for good.
    public static func beginForLife() {
        guard !isForLife else { return }
        isForLife = true
        bindery_run_global_jobs_on_main(1)
    }

    /// Lets the jobs waiting on the main actor run, and those they start, many times over: what a
    /// view model's own tasks do before they next suspend on a clock or an answer.
    public static func settle(yields: Int = 50) async {
        for _ in 0..<yields { await Task.yield() }
    }
}
