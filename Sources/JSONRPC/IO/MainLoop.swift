#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CDispatchMainQueue

/// The daemon's main thread as its one event loop: it waits in `poll` for the client's input and
/// for main-queue work (the main actor's jobs: async command steps, timers, signals), and runs
/// both itself.
///
/// Why not `dispatchMain()` and a reader thread, as before: then every message crossed two threads
/// (the reader woke, parsed, and queued a main-actor job; a second thread woke to run it), and a
/// round trip paid two wake-ups where one will do. Here the thread that reads also parses and
/// handles, and answers before it waits again. Main-queue work is drained through libdispatch's
/// run-loop hooks, the way Foundation's `RunLoop` does on Linux.
///
/// Foundation's timers (`Timer.scheduledTimer`, which schedules on the main run loop) fire here
/// too: see ``RunLoopTimers``.
///
/// Backpressure needs no queue of its own: input is read one chunk at a time and handled before
/// the next read, and a write to a client that does not read blocks this thread, so nothing more
/// is read until it does.
@MainActor
public enum MainLoop {
    private static var input: (descriptor: Int32, onReadable: @MainActor () -> Bool)?

    /// Whether ``run()`` can drain the main queue on this platform (Linux); elsewhere, call
    /// `dispatchMain()` and read on a thread of your own.
    public static var isAvailable: Bool { bindery_main_queue_descriptor() >= 0 }

    /// Calls `onReadable` on the main thread each time `descriptor` has bytes, or its end, to read,
    /// until `onReadable` returns false. One descriptor at a time.
    public static func watch(_ descriptor: Int32, onReadable: @escaping @MainActor () -> Bool) {
        input = (descriptor, onReadable)
    }

    /// Runs the loop for the rest of the process's life; the process ends by calling `exit`.
    public static func run() -> Never {
        let mainQueue = bindery_main_queue_descriptor()
        precondition(mainQueue >= 0, "MainLoop.run() needs libdispatch's main-queue descriptor (Linux)")
        var descriptors = [pollfd(fd: mainQueue, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: -1, events: Int16(POLLIN), revents: 0)]
        while true {
            // A negative descriptor is skipped by poll: nothing to read once the input has ended.
            descriptors[1].fd = input?.descriptor ?? -1
            let ready = poll(&descriptors, 2, RunLoopTimers.pollTimeout())
            defer { RunLoopTimers.fireDue(afterWork: ready > 0) }
            if ready <= 0 { continue }  // timed out for a timer, or EINTR: a signal, handled elsewhere
            if descriptors[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(mainQueue, &count, 8)  // an eventfd: reading clears it
                bindery_drain_main_queue()
            }
            if descriptors[1].revents != 0, let current = input, current.descriptor == descriptors[1].fd {
                if !current.onReadable() { input = nil }
            }
        }
    }
}
