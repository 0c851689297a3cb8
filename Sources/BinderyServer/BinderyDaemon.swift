#if canImport(Glibc)
import Glibc
#endif
import Dispatch
@_exported import Bindery

/// The entry point of a Bindery daemon: serve your own view models with a few lines.
///
/// ```swift
/// // Sources/mydaemon/main.swift
/// import BinderyServer
///
/// var registry = ViewModelRegistry()
/// registry.register("counter") { _ in CounterViewModel() }
/// BinderyDaemon.run(registry: registry, name: "mydaemon", version: "1.0.0")
/// ```
public enum BinderyDaemon {
    /// This package's version: `binderyd --version` and its `initialize` report it.
    public static let version = BinderyVersion.current

    /// The entry point for a `main.swift` in any language mode: `register` fills the registry (on
    /// the main actor), then the daemon runs as ``run(registry:name:version:arguments:)`` does.
    /// (Top-level code is on the main actor in Swift 6 mode only; this works in Swift 5 mode too.)
    ///
    /// ```swift
    /// BinderyDaemon.main(name: "appd", version: "1.0.0") { registry in
    ///     registry.register("todoList") { _ in TodoListViewModel() }
    /// }
    /// ```
    public static func main(name: String, version: String, arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                            register: @MainActor (inout ViewModelRegistry) -> Void) -> Never {
        MainActor.assumeIsolated {
            var registry = ViewModelRegistry()
            register(&registry)
            run(registry: registry, name: name, version: version, arguments: arguments)
        }
    }

    /// Parses the command line, then serves one client on stdin/stdout until it sends `exit` or
    /// closes stdin; or, with `--listen`, any number of clients on a Unix-domain socket
    /// (``ListenDaemon``); or, with `--remote`, relays stdio to such a daemon (``RemoteForwarder``).
    /// Never returns.
    ///
    /// - Parameters:
    ///   - registry: the view model types clients may open.
    ///   - name: the daemon's name, for `--help`, `--version`, `initialize` and the log.
    ///   - version: its version, likewise.
    ///   - arguments: the command line without the program name.
    @MainActor
    public static func run(registry: ViewModelRegistry, name: String, version: String,
                           arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        if let first = arguments.first, first.hasPrefix(DaemonSupervisor.flag) {
            DaemonSupervisor.run(name: name, arguments: arguments)
        }
        let options: ServerOptions
        do {
            switch try ServerOptions.parse(arguments) {
            case .help:
                print(ServerOptions.usage(name: name))
                exit(0)
            case .version:
                print("\(name) \(version)")
                print(ChangeTracking.mechanism)
                exit(0)
            case .serve(let parsed):
                options = parsed
            }
        } catch {
            StandardStreams.log("\(name): \(error)\nTry '\(name) --help' for the options.")
            exit(2)
        }
        if let path = options.remotePath {
            RemoteForwarder.run(name: name, spelledPath: path, daemonArguments: options.daemonArguments,
                                startsWithIdleExit: options.idleExit == nil)
        }
        if let path = options.listenPath {
            ListenDaemon.run(registry: registry, name: name, version: version, options: options, spelledPath: path)
        }
        let output = StandardStreams.takeStdoutForProtocol()
        // `_exit` after flushing stdio (a view model's stray prints, now on stderr), not `exit`: its
        // other clean-up (atexit handlers) can wait on threads still running (the reader in `read`).
        var connection: any Connection = StdioConnection(input: STDIN_FILENO, output: output,
                                                         limits: options.limits.reader) { code in
            fflush(nil)
            _exit(code)
        }
        if let path = options.recordPath {
            do {
                connection = try RecordingConnection(recording: connection, to: path, arguments: options.replayArguments,
                                                     daemon: name)
            } catch {
                StandardStreams.log("\(name): error: \(error)")
                exit(2)
            }
        }
        let server = Server(registry: registry, options: options, serverInfo: (name, version), connection: connection)
        // Signals first, before any thread of ours exists to receive one.
        let signals = TerminationSignals { signalName in
            Task { @MainActor in server.terminate(signal: signalName) }
        }
        // Deterministic: the view models' own tasks run on the main thread too, in one order.
        if options.isDeterministic { SerialJobs.beginForLife() }
        server.start()
        withExtendedLifetime((server, signals)) {
            if MainLoop.isAvailable { MainLoop.run() } else { dispatchMain() }
        }
    }
}

/// SIGTERM and SIGINT, handled off the main queue, so that a daemon stuck writing to a client that
/// does not read still obeys them: the server is asked to finish, and whatever happens on the main
/// actor, the process ends with code 0 within two seconds of the first signal (1.9 s, leaving room
/// for the signal's delivery and the exit itself).
///
/// A plain handler and a pipe (the self-pipe trick), not a dispatch source: on Linux a signal may be
/// delivered to any thread that does not block it — the main thread, waiting in `poll` (or in
/// `dispatchMain()`'s `sigsuspend`) — and a dispatch source's "ignore" disposition then drops it.
/// The handler only writes the signal's number to the pipe; a thread of its own reads it.
final class TerminationSignals: Sendable {
    nonisolated(unsafe) private static var pipeWriteEnd: Int32 = -1

    init(onSignal: @escaping @Sendable (String) -> Void) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { return }
        Self.pipeWriteEnd = ends[1]
        let readEnd = ends[0]
        for number in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(TerminationSignals.pipeWriteEnd, &byte, 1)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        // A parent may spawn us with these blocked (a mask is inherited: a test runner's worker
        // thread blocks every signal). The main thread, which waits in `poll`, must take them.
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGTERM)
        sigaddset(&mask, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &mask, nil)
        startSignalThread(readEnd: readEnd, onSignal: onSignal)
    }

    private func startSignalThread(readEnd: Int32, onSignal: @escaping @Sendable (String) -> Void) {
        startThread {
            var first = true
            while true {
                var byte: UInt8 = 0
                let count = read(readEnd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                let name = Int32(byte) == SIGTERM ? "SIGTERM" : "SIGINT"
                onSignal(name)
                guard first else { continue }
                first = false
                startThread {
                    // The main actor did not finish in time (most likely blocked writing to a client
                    // that stopped reading): end here. `_exit`, not `exit`: the main thread may hold
                    // stdio locks that `exit` would wait for.
                    var pause = timespec(tv_sec: 1, tv_nsec: 900_000_000)
                    var left = timespec()
                    while nanosleep(&pause, &left) != 0, errno == EINTR { pause = left }
                    StandardStreams.log("bindery: info: \(name): still busy after 1.9 s; exiting now")
                    _exit(0)
                }
            }
        }
    }
}
