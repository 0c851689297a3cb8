#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// `binderyd --listen PATH|auto`: one daemon, any number of clients on a Unix-domain socket.
///
/// Each client speaks the protocol exactly as on stdio — its own framing, capabilities,
/// `initialize`, `shutdown` and `exit` (which end its connection only) — through a ``Server`` of
/// its own over the daemon's one ``SessionHub``. Everything runs on the main thread in
/// ``MainLoop``: the listening socket and every client's socket are in its `poll`, and no write
/// blocks (each client has a bounded buffer: ``SocketConnection``).
///
/// Safety: the socket is mode 0600 in a directory of the user's that others cannot write (checked,
/// see ``SocketPlace``); a peer of another user id (`SO_PEERCRED`) is refused at once. A lock file
/// beside the socket, held for the daemon's life, decides between two daemons started on one path:
/// the second exits with a message (code 3). A socket left by a dead daemon (its lock is free) is
/// replaced. No TCP.
///
/// With `--idle-exit SECONDS` the daemon exits that long after its last client leaves (or after it
/// starts, if nobody comes); SIGTERM and SIGINT end every client's exchange as on stdio, then the
/// daemon. On the way out it writes `--state`, and removes its socket.
@MainActor
enum ListenDaemon {
    static func run(registry: ViewModelRegistry, name: String, version: String, options: ServerOptions,
                    spelledPath: String) -> Never {
        let place = SocketPlace(spelledPath)
        // A stray print lands in the log (stderr), as on stdio.
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        signal(SIGPIPE, SIG_IGN)
        func fail(_ message: String, code: Int32) -> Never {
            StandardStreams.log("\(name): error: \(message)")
            exit(code)
        }
        do {
            try place.prepareDirectory()
        } catch {
            fail(error.description, code: 2)
        }
        let lock = open(place.lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard lock >= 0 else { fail("cannot open \(place.lockPath): \(String(cString: strerror(errno)))", code: 2) }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            fail("another \(name) is already listening on \(place.path); connect to it (--remote \(spelledPath)) "
                 + "or stop it first", code: 3)
        }
        var status = stat()
        if lstat(place.path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                fail("\(place.path) exists and is not a socket: refusing to replace it", code: 2)
            }
            if let live = try? UnixSocket.connect(to: place.path) {
                close(live)
                fail("a daemon already answers on \(place.path); connect to it (--remote \(spelledPath))", code: 3)
            }
            unlink(place.path)
            StandardStreams.log("\(name): info: replaced the stale socket of a daemon that is gone: \(place.path)")
        }
        let listening: Int32
        do {
            listening = try UnixSocket.listen(at: place.path)
        } catch {
            fail(error.description, code: 2)
        }
        var bound = stat()
        lstat(place.path, &bound)
        writeArguments(options.daemonArguments, to: place.argumentsPath)

        let daemon = Listener(place: place, listening: listening, boundInode: bound.st_ino, name: name,
                              hub: SessionHub(registry: registry, options: options, serverInfo: (name, version),
                                              isShared: true),
                              options: options)
        let signals = TerminationSignals { signalName in
            Task { @MainActor in daemon.terminate(signal: signalName) }
        }
        // libdispatch makes the descriptor of its timer machinery (an epoll) on a timer's first use
        // (a task's sleep), and a process out of descriptors then dies (SIGILL): make it now.
        Task { try? await Task.sleep(for: .milliseconds(1)) }
        daemon.start()
        StandardStreams.log("\(name): info: listening on \(place.path) (pid \(getpid()))")
        withExtendedLifetime((daemon, signals)) { MainLoop.run() }
    }

    private static func writeArguments(_ arguments: [String], to path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return }
        let text = Array(arguments.map { $0 + "\n" }.joined().utf8)
        _ = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }
}

/// The listening daemon's state: its socket, its clients' hub, the idle timer. Main actor only.
@MainActor
private final class Listener {
    let place: SocketPlace
    let listening: Int32
    let boundInode: ino_t
    let name: String
    let hub: SessionHub
    let options: ServerOptions
    private var idleGeneration = 0
    private var isEnding = false
    private var clientCount = 0
    private var acceptingIsPaused = false
    private var pauses = 0

    init(place: SocketPlace, listening: Int32, boundInode: ino_t, name: String, hub: SessionHub, options: ServerOptions) {
        self.place = place
        self.listening = listening
        self.boundInode = boundInode
        self.name = name
        self.hub = hub
        self.options = options
    }

    func start() {
        takeReserve()
        hub.onLastClientGone = { [unowned self] in
            if isEnding { end() }
            armIdleExit()
        }
        watchListening()
        armIdleExit()
    }

    private func acceptAll() {
        while true {
            let descriptor: Int32
            do {
                guard let accepted = try UnixSocket.accept(listening) else { return }
                descriptor = accepted
            } catch {
                pauseAccepting(error)
                return
            }
            guard let uid = UnixSocket.peerUserID(descriptor), uid == geteuid() else {
                let who = UnixSocket.peerUserID(descriptor).map { "user \($0)" } ?? "an unknown user"
                StandardStreams.log("\(name): error: refused a connection from \(who): only user \(geteuid()) may connect")
                close(descriptor)
                continue
            }
            guard !isEnding else {
                close(descriptor)
                continue
            }
            idleGeneration += 1
            clientCount += 1
            let connection = SocketConnection(descriptor: descriptor, readerLimits: options.limits.reader,
                                              limits: backlogLimits)
            let server = hub.connect(connection)
            let number = clientCount
            connection.onLost = { [reference = server.reference, name] reason in
                StandardStreams.log("\(name): info: client \(number) is gone: \(reason)")
                reference?.server?.connectionLost()
            }
            connection.onFinished = { [weak self] in self?.resumeAccepting() }  // its descriptor is free
        }
    }

    /// `accept` failed with a connection waiting (out of descriptors, most likely): the listening
    /// socket stays readable, so polling it again at once would spin at full CPU. Stop watching it
    /// until a client leaves (its descriptor frees) or a second has passed; the connections waiting
    /// meanwhile stay in the backlog and are served then.
    private func pauseAccepting(_ error: UnixSocket.Failure) {
        guard !acceptingIsPaused, !isEnding else { return }
        acceptingIsPaused = true
        MainLoop.unwatch(listening)
        releaseReserve()  // room for what the daemon opens meanwhile (a --state file)
        pauses += 1
        if pauses == 1 || pauses % 100 == 0 {
            let what = UnixSocket.isOutOfResources(error.code) ? "out of descriptors" : "accept failed"
            StandardStreams.log("\(name): error: \(what) (\(error.description)); not accepting until a client "
                                + "leaves or for a second (\(pauses) time(s) so far)")
        }
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(1))
            self?.resumeAccepting()
        }
    }

    private func resumeAccepting() {
        guard acceptingIsPaused, !isEnding else { return }
        guard takeReserve() else {
            // Still out of descriptors: try again in a second.
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: .seconds(1))
                self?.resumeAccepting()
            }
            return
        }
        acceptingIsPaused = false
        watchListening()
    }

    /// A few descriptors held back while accepting, given up when out of them, so that what the
    /// daemon itself must open meanwhile can be.
    private var reserve: [Int32] = []

    @discardableResult
    private func takeReserve() -> Bool {
        while reserve.count < 4 {
            let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else {
                releaseReserve()
                return false
            }
            reserve.append(descriptor)
        }
        return true
    }

    private func releaseReserve() {
        for descriptor in reserve { close(descriptor) }
        reserve.removeAll()
    }

    private func watchListening() {
        MainLoop.watch(listening, events: Int16(POLLIN)) { [unowned self] _ in
            acceptAll()
            return true
        }
    }

    private var backlogLimits: SocketConnection.Limits {
        var limits = SocketConnection.Limits()
        limits.maximumBacklog = options.limits.clientBacklog
        return limits
    }

    /// With `--idle-exit`, ends the daemon that long from now unless a client comes meanwhile.
    private func armIdleExit() {
        guard let seconds = options.idleExit, !hub.hasClients else { return }
        idleGeneration += 1
        let generation = idleGeneration
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: .seconds(seconds))
            guard let self, generation == self.idleGeneration, !self.hub.hasClients else { return }
            StandardStreams.log("\(self.name): info: no client for \(seconds) s (--idle-exit); exiting")
            self.end()
        }
    }

    func terminate(signal signalName: String) {
        guard !isEnding else { return }
        isEnding = true
        StandardStreams.log("\(name): info: \(signalName): ending every client's exchange, then exiting")
        stopListening()
        if !hub.hasClients { end() }
        hub.terminate(signal: signalName)
    }

    private func stopListening() {
        MainLoop.unwatch(listening)
        close(listening)
        // Only our own socket: a daemon started after us on this path has its own.
        var status = stat()
        if lstat(place.path, &status) == 0, status.st_ino == boundInode {
            unlink(place.path)
            unlink(place.argumentsPath)
        }
    }

    private func end() -> Never {
        if !isEnding { stopListening() }
        hub.flushStore()
        fflush(nil)
        _exit(0)
    }
}
