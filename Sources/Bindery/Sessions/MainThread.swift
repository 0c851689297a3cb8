#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// Runs `body` on the main actor: at once when already on it, which is where view models change
/// (Observation calls `onChange` synchronously from the setter); otherwise as a main-queue job.
func runOnMainActor(_ body: @escaping @MainActor () -> Void) {
    if MainThread.isCurrent {
        // Checked just above; `MainActor.assumeIsolated` would ask the runtime again, which cost
        // 1,200 instructions per change (a sixth of Observation's own firing).
        unsafeBitCast(body, to: (() -> Void).self)()
    } else {
        DispatchQueue.main.async { MainActor.assumeIsolated(body) }
    }
}

/// Whether code runs on the main actor. Linux has no `pthread_main_np`, and after `dispatchMain()`
/// the main queue is drained by a thread that is not the process's first one, so both are checked:
/// the thread that recorded itself, and a marker set on the main queue.
enum MainThread {
    nonisolated(unsafe) private static var thread: pthread_t?
    private static let key = DispatchSpecificKey<Bool>()

    @MainActor static func record() {
        guard thread == nil else { return }
        thread = pthread_self()
        DispatchQueue.main.setSpecific(key: key, value: true)
    }

    static var isCurrent: Bool {
        // The thread first: with the daemon's own main loop the main actor runs on it, and the
        // comparison costs far less than the dispatch-specific lookup.
        if let thread, pthread_equal(thread, pthread_self()) != 0 { return true }
        return DispatchQueue.getSpecific(key: key) == true
    }
}
