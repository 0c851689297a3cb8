#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// `binderyd --remote PATH|auto`: for a client that can only spawn a program (an editor plugin, a
/// script), a thin process that relays its stdin to the shared daemon at PATH and the daemon's
/// answers to its stdout, byte for byte, both ways at once.
///
/// Before it relays a byte it checks that the socket's directory and the socket are the user's
/// alone and that the process listening is the user's (``SocketPlace/verify(connected:)``); it
/// refuses with exit 1 and a message naming the path otherwise.
///
/// When no daemon answers at PATH, it starts one — this same executable with `--listen PATH`,
/// `--idle-exit 60` (unless given) and the other options it was given — in a session of its own
/// (`setsid`), its stderr appended to `PATH.log`, and connects as soon as it listens. Two
/// forwarders starting at once may each start a daemon; the daemon's lock lets one listen, the
/// other exits, and both forwarders connect to the one. A daemon already running keeps the
/// options it started with: the forwarder warns on stderr when they differ from its own.
///
/// When its stdin ends, the forwarder shuts the socket's sending side (the daemon sees the end of
/// the client's input, as on stdio) and relays what is still to come; when the daemon ends the
/// connection, it exits with code 0. It exits with 1 when it cannot reach or start a daemon.
///
/// One thread, one `poll`; writes never block (the socket is non-blocking, stdout is written at
/// most `PIPE_BUF` bytes per readiness), and each direction buffers at most 1 MiB before it stops
/// reading its source.
enum RemoteForwarder {
    static func run(name: String, spelledPath: String, daemonArguments: [String], startsWithIdleExit: Bool) -> Never {
        signal(SIGPIPE, SIG_IGN)
        let place = SocketPlace(spelledPath)
        // The per-user daemon keeps keyed forms in the user's state directory: they survive its
        // crash. Said here too (not only by the supervisor) so the options compare as they run.
        let daemonArguments = daemonArguments + place.defaultStateArguments(given: daemonArguments)
        func fail(_ message: String, status: Int32 = 1) -> Never {
            StandardStreams.log("\(name) --remote: error: \(message)")
            exit(status)
        }
        // A directory that is there but not the user's alone is refused before anything is tried.
        if place.directoryExists {
            do {
                try place.checkDirectory()
            } catch {
                fail("refusing to talk to \(place.path): \(error.description)")
            }
        }
        var state = RelayState()
        var attempts = 0
        while true {
            let (socket, started) = connectOrStart(place: place, daemonArguments: daemonArguments,
                                                   startsWithIdleExit: startsWithIdleExit, fail: { fail($0) })
            do {
                try place.verify(connected: socket)
            } catch {
                fail(error.description)
            }
            if !started, attempts == 0 { warnIfOptionsDiffer(place: place, daemonArguments: daemonArguments, name: name) }
            let daemon = UnixSocket.peerProcessID(socket) ?? 0
            relay(socket: socket, state: &state)
            close(socket)
            // The daemon ended the connection. Alive, it closed this client's exchange (after
            // `exit`, or its input's end): done, as always.
            guard DaemonFate.isEnding(daemon) else { exit(0) }
            let fate = DaemonFate.recorded(pid: daemon, place: place, waiting: 3)
            if !state.heardFromDaemon, state.canReplay, attempts < 3, fate.map({ $0.status == 0 }) ?? true {
                // It was exiting (--idle-exit) just as this forwarder connected, and answered
                // nothing: it handled nothing, so start over, with what the client sent.
                attempts += 1
                StandardStreams.log("\(name) --remote: info: the daemon on \(place.path) (pid \(daemon)) was exiting "
                                    + "as this client connected; connecting again")
                state.rewind()
                continue
            }
            guard let fate else {
                fail("the daemon on \(place.path) (pid \(daemon)) ended while this client was connected (how is "
                     + "unknown: --remote did not start it); see \(place.logPath) if it has one")
            }
            let what = fate.text.hasPrefix("killed") ? "was \(fate.text)" : fate.text
            if fate.status == 0 {
                StandardStreams.log("\(name) --remote: info: the daemon on \(place.path) (pid \(daemon)) stopped "
                                    + "(\(fate.text)) while this client was connected; its log: \(place.logPath)")
                exit(0)
            }
            fail("the daemon on \(place.path) (pid \(daemon)) \(what) while this client was connected; "
                 + "its log: \(place.logPath)", status: fate.status)
        }
    }

    /// A socket connected to the daemon at `place` (not yet verified), starting one when none
    /// answers; `started` says whether this forwarder started it.
    private static func connectOrStart(place: SocketPlace, daemonArguments: [String], startsWithIdleExit: Bool,
                                       fail: (String) -> Never) -> (socket: Int32, started: Bool) {
        if let connected = try? UnixSocket.connect(to: place.path) { return (connected, false) }
        do {
            try place.prepareDirectory()
        } catch {
            fail(error.description)
        }
        var arguments = [DaemonSupervisor.flag + place.path]
        if startsWithIdleExit { arguments += ["--idle-exit", "60"] }
        arguments += daemonArguments
        do {
            try startDaemon(arguments: arguments, log: place.logPath)
        } catch {
            fail(error.description)
        }
        // Up to ten seconds for it (or a daemon another forwarder started) to listen.
        for _ in 0..<1000 {
            if let connected = try? UnixSocket.connect(to: place.path) { return (connected, true) }
            usleep(10_000)
        }
        fail("no daemon answers on \(place.path) after starting one; see \(place.logPath)")
    }

    /// Spawns the daemon detached: its own session, stdin and stdout on /dev/null, stderr appended
    /// to `log` (mode 0600).
    private static func startDaemon(arguments: [String], log: String) throws(SocketPlace.PlaceError) {
        var executable = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &executable, executable.count - 1)
        guard length > 0 else { throw .init("cannot find this executable: \(String(cString: strerror(errno)))") }
        let path = String(cString: executable)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // POSIX_SPAWN_SETSID (glibc 2.26; Glibc's module shows it only with _GNU_SOURCE), and the
        // default signal mask and dispositions: the daemon outlives this process and its terminal.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGTERM)
        sigaddset(&defaults, SIGINT)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(0x80 | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard result == 0 else { throw .init("cannot start \(path): \(String(cString: strerror(result)))") }
        // Reaped when it exits early (it lost the race to another daemon): no zombie meanwhile.
        signal(SIGCHLD, SIG_IGN)
    }

    private static func warnIfOptionsDiffer(place: SocketPlace, daemonArguments: [String], name: String) {
        guard let file = fopen(place.argumentsPath, "r") else { return }
        defer { fclose(file) }
        var running: [String] = []
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0, let line {
            running.append(String(String(cString: line).dropLast()))
        }
        free(line)
        let ignored: Set<String> = ["--idle-exit"]
        func meaningful(_ arguments: [String]) -> [String] {
            var result: [String] = []
            var skip = false
            for argument in arguments {
                if skip { skip = false; continue }
                if ignored.contains(argument) { skip = true; continue }
                result.append(argument)
            }
            return result
        }
        let mine = meaningful(daemonArguments)
        let theirs = meaningful(running)
        guard mine != theirs else { return }
        StandardStreams.log("\(name) --remote: warning: the daemon on \(place.path) runs with options "
                            + "[\(theirs.joined(separator: " "))], not [\(mine.joined(separator: " "))]: "
                            + "connecting to it as it is (stop it to start one with these)")
    }

    /// What the relay carries across a reconnection: the client's bytes not yet sent, and those
    /// sent before the daemon's first byte (kept, up to 1 MiB, to be sent again to a new daemon
    /// should the first have been exiting as it was reached).
    private struct RelayState {
        var toDaemon = Buffer()
        var inputOpen = true
        var heardFromDaemon = false
        var sent: [UInt8] = []
        var canReplay = true

        mutating func rewind() {
            var again = Buffer()
            again.append(sent[...])
            again.append(toDaemon.remaining[...])
            toDaemon = again
            sent = []
        }
    }

    /// Relays until the daemon ends the connection (what it sent is handed over first).
    private static func relay(socket: Int32, state: inout RelayState) {
        _ = fcntl(socket, F_SETFL, fcntl(socket, F_GETFL) | O_NONBLOCK)
        var toClient = Buffer()
        var sentEnd = false
        let limit = 1 << 20
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            var descriptors = [
                pollfd(fd: state.inputOpen && state.toDaemon.count < limit ? STDIN_FILENO : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: socket, events: Int16((toClient.count < limit ? POLLIN : 0) | (state.toDaemon.count > 0 ? POLLOUT : 0)),
                       revents: 0),
                pollfd(fd: toClient.count > 0 ? STDOUT_FILENO : -1, events: Int16(POLLOUT), revents: 0),
            ]
            if poll(&descriptors, 3, -1) < 0 { continue }
            if descriptors[0].revents != 0 {
                let count = read(STDIN_FILENO, &chunk, chunk.count)
                if count > 0 {
                    state.toDaemon.append(chunk[0..<count])
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    state.inputOpen = false
                }
            }
            if descriptors[1].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0, toClient.count < limit {
                let count = read(socket, &chunk, chunk.count)
                if count > 0 {
                    toClient.append(chunk[0..<count])
                    state.heardFromDaemon = true
                    state.sent = []
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    // The daemon ended the connection: hand over what it sent, then go.
                    while toClient.count > 0 {
                        guard toClient.write(to: STDOUT_FILENO, atMost: Int.max) else { break }
                    }
                    return
                }
            }
            if state.toDaemon.count > 0, descriptors[1].revents & Int16(POLLOUT) != 0 {
                let before = state.toDaemon.remaining
                guard state.toDaemon.write(to: socket, atMost: Int.max) else { return }
                if !state.heardFromDaemon, state.canReplay {
                    state.sent += before.prefix(before.count - state.toDaemon.count)
                    if state.sent.count > limit { state.canReplay = false }
                }
            }
            if toClient.count > 0, descriptors[2].revents != 0 {
                // The client closed our stdout: nobody to relay to.
                guard toClient.write(to: STDOUT_FILENO, atMost: Int(PIPE_BUF)) else { exit(0) }
            }
            if !state.inputOpen, state.toDaemon.count == 0, !sentEnd {
                shutdown(socket, Int32(SHUT_WR))
                sentEnd = true
            }
        }
    }

    /// Bytes waiting to go one way.
    private struct Buffer {
        private var bytes: [UInt8] = []
        private var start = 0
        var count: Int { bytes.count - start }
        var remaining: ArraySlice<UInt8> { bytes[start...] }

        mutating func append(_ more: ArraySlice<UInt8>) {
            if start > 0, start == bytes.count {
                bytes.removeAll(keepingCapacity: true)
                start = 0
            }
            bytes.append(contentsOf: more)
        }

        /// Writes what `descriptor` takes now (up to `limit` bytes); false when it failed for good.
        mutating func write(to descriptor: Int32, atMost limit: Int) -> Bool {
            let length = min(count, limit)
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + start, length) }
            if written < 0 { return errno == EINTR || errno == EAGAIN }
            start += written
            if start == bytes.count {
                bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
                start = 0
            }
            return true
        }
    }
}
