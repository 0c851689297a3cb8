#if canImport(Glibc)
import Glibc
#endif

/// Runs every job the Swift runtime would send to its global executor on the main actor instead,
/// while a ``TestSession`` is open: then the tasks a view model starts by itself (a debounce's
/// `Task { … }`, a `nonisolated async` method, a sleep that hops off the main actor) make progress
/// only when the test yields (``TestSession/advance(by:assert:)``), in one order, and a virtual
/// clock advanced meanwhile sees every sleep they begin. TCA's tests use the same runtime hook.
@MainActor
enum SerialJobs {
    typealias Original = @convention(thin) (UnownedJob) -> Void
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    nonisolated(unsafe) private static let hook: UnsafeMutablePointer<Hook?>? = {
        guard let symbol = dlsym(dlopen(nil, 0), "swift_task_enqueueGlobal_hook") else { return nil }
        return symbol.assumingMemoryBound(to: Hook?.self)
    }()

    private static var users = 0

    /// From now on until as many ``end()``s, global jobs run on the main actor.
    static func begin() {
        users += 1
        if users == 1 { hook?.pointee = { job, _ in MainActor.shared.enqueue(job) } }
    }

    static func end() {
        users -= 1
        if users == 0 { hook?.pointee = nil }
    }

    /// Lets every job waiting on the main actor run, and those they start, a number of times over.
    static func settle() async {
        for _ in 0..<50 { await Task.yield() }
    }
}
