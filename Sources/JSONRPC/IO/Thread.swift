#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new detached OS thread: for a loop that blocks in `read` and must not hold a
/// thread of Swift's cooperative pool.
///
/// The thread blocks every signal: a process-directed signal (SIGTERM) goes to a thread that does
/// not block it, and a reader thread that let it in would swallow it (the daemon handles SIGTERM
/// with a dispatch source, the disposition itself being "ignore").
public func startThread(_ body: @escaping @Sendable () -> Void) {
    final class Box: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { context in
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        let box = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! Box
        box.body()
        return nil
    }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
    pthread_detach(thread)
}
