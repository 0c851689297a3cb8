#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CDispatchMainQueue

/// The daemon's main thread as its one event loop: it waits in `poll` for its clients' input (and,
/// for a client whose answers wait unwritten, for room to write) and for main-queue work (the main
/// actor's jobs: async command steps, timers, signals), and runs both itself.
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
/// Descriptors: the stdio daemon watches one (stdin); `binderyd --listen` watches its listening
/// socket and one socket per client (see ``SocketConnection``). Handlers run on the main thread, in
/// the order of the descriptors' registration, and may watch or unwatch descriptors themselves.
///
/// Backpressure needs no queue of its own: input is read one chunk at a time and handled before
/// the next read; a stdio write to a client that does not read blocks this thread, so nothing more
/// is read until it does; a socket client's writes never block (they wait in its own bounded buffer).
@MainActor
public enum MainLoop {
    private struct Watch {
        let descriptor: Int32
        var events: Int16
        let handler: @MainActor (Int16) -> Bool
    }

    private static var watches: [Watch] = []
    /// The poll set: the main queue's descriptor first, then one entry per watch, rebuilt when the
    /// watches change.
    private static var descriptors: [pollfd] = []
    private static var descriptorsAreStale = true

    /// Whether ``run()`` can drain the main queue on this platform (Linux); elsewhere, call
    /// `dispatchMain()` and read on a thread of your own.
    public static var isAvailable: Bool { bindery_main_queue_descriptor() >= 0 }

    /// Calls `onReadable` on the main thread each time `descriptor` has bytes, or its end, to read,
    /// until `onReadable` returns false.
    public static func watch(_ descriptor: Int32, onReadable: @escaping @MainActor () -> Bool) {
        watch(descriptor, events: Int16(POLLIN)) { _ in onReadable() }
    }

    /// Calls `handler` with the events `poll` reported (`POLLIN`, `POLLOUT`, `POLLHUP`, `POLLERR`)
    /// each time `descriptor` has one of `events` (errors and hang-ups are always reported), until
    /// `handler` returns false or ``unwatch(_:)``. A descriptor is watched once: watching it again
    /// replaces its handler.
    public static func watch(_ descriptor: Int32, events: Int16, handler: @escaping @MainActor (Int16) -> Bool) {
        watches.removeAll { $0.descriptor == descriptor }
        watches.append(Watch(descriptor: descriptor, events: events, handler: handler))
        descriptorsAreStale = true
    }

    /// Changes what `descriptor` is watched for (`0`: only errors and hang-ups).
    public static func setEvents(_ descriptor: Int32, _ events: Int16) {
        guard let index = watches.firstIndex(where: { $0.descriptor == descriptor }),
              watches[index].events != events else { return }
        watches[index].events = events
        descriptorsAreStale = true
    }

    /// Stops watching `descriptor` (before it is closed).
    public static func unwatch(_ descriptor: Int32) {
        watches.removeAll { $0.descriptor == descriptor }
        descriptorsAreStale = true
    }

    /// Runs the loop for the rest of the process's life; the process ends by calling `exit`.
    public static func run() -> Never {
        let mainQueue = bindery_main_queue_descriptor()
        precondition(mainQueue >= 0, "MainLoop.run() needs libdispatch's main-queue descriptor (Linux)")
        while true {
            if descriptorsAreStale {
                descriptors = [pollfd(fd: mainQueue, events: Int16(POLLIN), revents: 0)]
                    + watches.map { pollfd(fd: $0.descriptor, events: $0.events, revents: 0) }
                descriptorsAreStale = false
            }
            let ready = poll(&descriptors, nfds_t(descriptors.count), RunLoopTimers.pollTimeout())
            defer { RunLoopTimers.fireDue(afterWork: ready > 0) }
            if ready <= 0 { continue }  // timed out for a timer, or EINTR: a signal, handled elsewhere
            if descriptors[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(mainQueue, &count, 8)  // an eventfd: reading clears it
                bindery_drain_main_queue()
            }
            // The reports of this poll (a copy: a handler that changes the watches rebuilds the
            // set for the next poll, not this one), without allocating on the way.
            let polled = descriptors
            for index in 1..<polled.count where polled[index].revents != 0 {
                let descriptor = polled[index].fd
                // Still watched? (A handler before it may have unwatched it.)
                guard let watch = watches.first(where: { $0.descriptor == descriptor }) else { continue }
                if !watch.handler(polled[index].revents) { unwatch(descriptor) }
            }
        }
    }
}
