#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CDispatchMainQueue

/// Foundation's timers in a daemon whose main thread is ``MainLoop``: an app's main thread runs the
/// main run loop, so a view model's `Timer.scheduledTimer` (which schedules on it) fires there;
/// here the main loop waits in `poll`, so it runs the run loop itself — once per wake-up at most
/// every millisecond, and when the next timer is due — and sets its `poll` timeout by that timer.
///
/// In a program that does not link Foundation's run loop this does nothing at all
/// (`bindery_run_loop_available()` is false: the C shim references it weakly).
@MainActor
enum RunLoopTimers {
    static let isAvailable = bindery_run_loop_available() != 0
    /// When the run loop was last run, and when its next timer is due (monotonic seconds).
    private static var lastRun = 0.0
    private static var nextDue = Double.infinity
    /// Whether input or main-queue work was handled since the run loop last ran (it may have
    /// scheduled a timer the run loop has not been asked about).
    private static var workSinceRun = false

    /// The `poll` timeout in milliseconds: -1 (wait for input) when no timer is scheduled.
    static func pollTimeout() -> Int32 {
        guard isAvailable else { return -1 }
        let now = monotonicSeconds()
        // Work was just handled and may have scheduled a timer: look again within a millisecond.
        let due = workSinceRun ? min(nextDue, lastRun + 0.001) : nextDue
        guard due.isFinite else { return -1 }
        return Int32(max(0, ((due - now) * 1000).rounded(.up)))
    }

    /// Fires the timers that are due, after a wake-up that handled `work` (or none); at most once a
    /// millisecond unless one is due.
    static func fireDue(afterWork work: Bool) {
        guard isAvailable else { return }
        workSinceRun = workSinceRun || work
        let now = monotonicSeconds()
        guard now >= nextDue || now - lastRun >= 0.001 else { return }
        let wait = bindery_run_loop_fire_due_timers()
        lastRun = monotonicSeconds()
        workSinceRun = false
        nextDue = wait < 0 ? .infinity : lastRun + wait
    }

    private static func monotonicSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
