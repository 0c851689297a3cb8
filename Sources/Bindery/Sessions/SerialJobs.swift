import CSwiftRuntime

/// Runs every job the Swift runtime would send to its global executor on the main actor instead,
/// between ``begin()`` and as many ``end()``s: then the tasks a view model starts by itself (a
/// debounce's `Task { … }`, a `nonisolated async` method, a sleep that hops off the main actor)
/// make progress only when the main actor is free, in one order, and a virtual clock advanced
/// meanwhile sees every sleep they begin. A `--deterministic` daemon runs so for its whole life;
/// `TestSession` while a session is open. (TCA's tests use the same runtime hook.)
@MainActor
public enum SerialJobs {
    private static var users = 0

    public static func begin() {
        users += 1
        if users == 1 { bindery_run_global_jobs_on_main(1) }
    }

    public static func end() {
        users -= 1
        if users == 0 { bindery_run_global_jobs_on_main(0) }
    }

    /// Lets the jobs waiting on the main actor run, and those they start, many times over: what a
    /// view model's own tasks do before they next suspend on a clock or an answer.
    public static func settle() async {
        for _ in 0..<50 { await Task.yield() }
    }
}
