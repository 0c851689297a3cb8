import Glibc
import JSONRPC

/// A child process started with `posix_spawn`, its stdin, stdout and stderr on pipes of its own.
///
/// Every descriptor bindery-dev opens is close-on-exec, so a child inherits only its three pipes:
/// a daemon never holds the write end of another daemon's stdin (which would keep that one from
/// ever seeing the end of its input). The child gets a process group of its own, so that
/// ``terminate()`` reaches what it started too (`swift build` runs compilers).
///
/// Not thread-safe: the thread that spawned it writes to it and ends it; reader threads read only
/// the descriptors handed to them.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// Write end of the child's stdin; -1 once closed.
    private(set) var stdin: Int32
    /// Read ends of the child's stdout and stderr; the reader that owns each closes it.
    let stdout: Int32
    let stderr: Int32

    enum SpawnError: Error, CustomStringConvertible {
        case failed(String, Int32)
        var description: String {
            switch self {
            case .failed(let path, let code): "cannot start \(path): \(String(cString: strerror(code)))"
            }
        }
    }

    /// Starts `path` with `arguments` (not including argv[0]).
    /// `mergeStderr` sends the child's stderr down its stdout pipe (then `stderr` is -1).
    init(path: String, arguments: [String], mergeStderr: Bool = false) throws {
        let input = Self.makePipe(), output = Self.makePipe()
        let errors = mergeStderr ? (read: Int32(-1), write: Int32(-1)) : Self.makePipe()
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.read, 0)
        posix_spawn_file_actions_adddup2(&actions, output.write, 1)
        posix_spawn_file_actions_adddup2(&actions, mergeStderr ? output.write : errors.write, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // Default signal handling and an empty mask in the child, whatever this process blocks.
        var all = sigset_t(), none = sigset_t()
        sigfillset(&all)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let result = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        close(input.read)
        close(output.write)
        if !mergeStderr { close(errors.write) }
        guard result == 0 else {
            close(input.write)
            close(output.read)
            if !mergeStderr { close(errors.read) }
            throw SpawnError.failed(path, result)
        }
        pid = child
        stdin = input.write
        stdout = output.read
        stderr = errors.read
    }

    /// Writes all of `bytes` to the child's stdin; false when the child no longer reads (it ended).
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        guard stdin >= 0 else { return false }
        return bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(stdin, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// Closes the child's stdin: a daemon takes it as the end of its input and exits.
    func closeStdin() {
        if stdin >= 0 { close(stdin) }
        stdin = -1
    }

    /// Sends `signal` to the child's process group (it and whatever it started).
    func terminate(_ signal: Int32 = SIGTERM) {
        kill(-pid, signal)
    }

    /// Waits for the child to end; its exit code, or 128 + the signal that ended it.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return -1 }
        }
        if status & 0x7f == 0 { return (status >> 8) & 0xff }
        return 128 + (status & 0x7f)
    }

    private static func makePipe() -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        // pipe, then close-on-exec: not atomic, but every spawn happens on the main actor.
        precondition(pipe(&descriptors) == 0, "pipe failed: \(errno)")
        _ = fcntl(descriptors[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptors[1], F_SETFD, FD_CLOEXEC)
        return (descriptors[0], descriptors[1])
    }
}

/// Reads `descriptor` to its end on a thread of its own, handing each chunk to `onChunk`, then
/// calls `onEnd` and closes it.
func readToEnd(_ descriptor: Int32, onChunk: @escaping @Sendable ([UInt8]) -> Void, onEnd: @escaping @Sendable () -> Void) {
    startThread {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            onChunk(Array(buffer[0..<count]))
        }
        close(descriptor)
        onEnd()
    }
}
