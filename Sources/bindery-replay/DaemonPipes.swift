import BinderyTranscript
import Glibc
import JSONRPC

/// A daemon process on pipes, the daemon side of a replay: started as `/bin/sh -c 'exec CMD "$@"'`
/// with the transcript's arguments, so CMD may be any command line (`swift run appd`, a wrapper).
///
/// One thread does everything: writes go straight to the child's stdin, reads wait in `poll` on
/// its stdout and stderr together (stderr's tail is kept for a failure's message). Used by one task
/// at a time (hence `@unchecked Sendable`). The child has a process group of its own, so a hung
/// one is killed with whatever it started.
final class DaemonPipes: ReplayPeer, @unchecked Sendable {
    private let pid: pid_t
    private var input: Int32
    private var output: Int32
    private var errors: Int32
    private let framing: Framing
    private var decoder = FrameDecoder()
    private var stderrTail: [UInt8] = []
    private var status: Int32?

    /// How long a read waits for a message that must come before calling the daemon hung.
    static let hangGuardMs: Int32 = 60_000
    /// Record mode: how long the daemon may be quiet before what it says is taken as complete.
    static let quietMs: Int32 = 300

    init(command: String, arguments: [String], framing: Framing) throws(TranscriptError) {
        self.framing = framing
        var ends = [[Int32]](repeating: [0, 0], count: 3)
        for index in 0..<3 {
            guard pipe(&ends[index]) == 0 else { throw TranscriptError("pipe failed (errno \(errno))") }
            for end in ends[index] { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0][0], 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1][1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[2][1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        let words = ["/bin/sh", "-c", "exec \(command) \"$@\"", "bindery-replay"] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child = pid_t()
        let result = posix_spawn(&child, "/bin/sh", &actions, &attributes, argv, environ)
        close(ends[0][0])
        close(ends[1][1])
        close(ends[2][1])
        guard result == 0 else { throw TranscriptError("cannot start /bin/sh: \(String(cString: strerror(result)))") }
        pid = child
        input = ends[0][1]
        output = ends[1][0]
        errors = ends[2][0]
    }

    deinit {
        if status == nil { kill(-pid, SIGKILL); _ = reap(waiting: true) }
        for descriptor in [input, output, errors] where descriptor >= 0 { close(descriptor) }
    }

    func send(_ body: [UInt8]) async {
        var bytes: [UInt8] = []
        framing.frame(body, into: &bytes)
        guard input >= 0 else { return }
        // A daemon that ended (after `exit`) reads no more: what it did not read is not part of the replay.
        let ok = bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(input, raw.baseAddress! + offset, raw.count - offset)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return false }
                offset += written
            }
            return true
        }
        if !ok { await endInput() }
    }

    func endInput() async {
        if input >= 0 { close(input) }
        input = -1
    }

    func next() async -> [UInt8]? { read(waitingMs: Self.hangGuardMs) }

    func nextBeforeQuiet() async -> [UInt8]? { read(waitingMs: Self.quietMs) }

    func exitCode() async -> Int32? {
        for _ in 0..<(Self.hangGuardMs / 10) {
            if let status = reap(waiting: false) { return status }
            usleep(10_000)
        }
        kill(-pid, SIGKILL)
        return nil
    }

    func sideNotes() async -> String {
        drainErrors()
        return String(decoding: stderrTail, as: UTF8.self)
    }

    /// The next body on stdout, waiting up to `waitingMs` for more bytes each time none are there.
    private func read(waitingMs: Int32) -> [UInt8]? {
        while true {
            if let event = decoder.next() {
                if case .frame(let body) = event { return body }
                continue
            }
            guard output >= 0 else { return nil }
            var fds = [pollfd(fd: output, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, nfds_t(errors >= 0 ? 2 : 1), waitingMs)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { return nil }
            if fds[1].revents != 0 { drainErrors() }
            if fds[0].revents != 0 {
                guard let chunk = readChunk(output) else {
                    close(output)
                    output = -1
                    if let last = decoder.finish(), case .frame(let body) = last { return body }
                    return nil
                }
                decoder.append(chunk)
            }
        }
    }

    /// Keeps the last 4 KiB the daemon wrote on stderr.
    private func drainErrors() {
        while errors >= 0 {
            var fds = [pollfd(fd: errors, events: Int16(POLLIN), revents: 0)]
            guard poll(&fds, 1, 0) > 0 else { return }
            guard let chunk = readChunk(errors) else {
                close(errors)
                errors = -1
                return
            }
            stderrTail = Array((stderrTail + chunk).suffix(4096))
        }
    }

    private func readChunk(_ descriptor: Int32) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            return count > 0 ? Array(buffer[0..<count]) : nil
        }
    }

    /// The child's exit code (128 + a signal) once it has ended.
    private func reap(waiting: Bool) -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        guard waitpid(pid, &raw, waiting ? 0 : WNOHANG) == pid else { return nil }
        status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
        return status
    }
}
