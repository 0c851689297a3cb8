/// The daemon's command line.
public struct ServerOptions: Sendable, Equatable {
    /// `--record FILE`: write the whole exchange there as JSON lines (see ``Recorder``).
    public var recordPath: String?
    /// `--state DIR`: keep keyed sessions in DIR across restarts (see ``SessionStore``).
    public var stateDirectory: String?
    /// `--deterministic`: a virtual clock moved by `clock/advance`, seeded randomness, sequential ids.
    public var isDeterministic = false
    /// `--seed N`: the seed of the random source under `--deterministic` (default 1).
    public var seed: UInt64 = 1
    /// The limits that keep a buggy or hostile client from eating the machine (see RELIABILITY.md).
    public var limits = Limits()
    /// `--listen PATH|auto`: serve any number of clients on a Unix-domain socket (see ``ListenDaemon``).
    public var listenPath: String?
    /// `--remote PATH|auto`: relay stdio to the daemon listening there, starting one if none
    /// answers (see ``RemoteForwarder``).
    public var remotePath: String?
    /// `--idle-exit SECONDS`: a listening daemon exits this long after its last client leaves.
    public var idleExit: Int?
    /// The arguments that configure a daemon (all but `--remote` and its path): what a forwarder
    /// passes on to a daemon it starts.
    public var daemonArguments: [String] = []

    public struct Limits: Sendable, Equatable {
        /// `--max-message-size BYTES` (default 16 MiB: far above any form's state, while a message
        /// and its parsed tree stay well under 100 MB) and `--max-depth N` (default 512: protocol
        /// messages need under 10; 512 recursive parser frames fit easily in a thread's stack). The
        /// read-ahead limits apply only where the reader is a thread of its own (not on Linux).
        public var reader = MessageReader.Limits()
        /// `--max-sessions N`: sessions open at once (default 100,000).
        public var sessions = 100_000
        /// `--max-in-flight N`: async commands running at once, per client (default 10,000).
        public var inFlight = 10_000
        /// `--max-client-backlog BYTES`: what a `--listen` client may leave unread before it is
        /// disconnected (default 16 MiB); see ``SocketConnection``.
        public var clientBacklog = SocketConnection.Limits().maximumBacklog

        public init() {}
    }

    public init(recordPath: String? = nil, isDeterministic: Bool = false, seed: UInt64 = 1) {
        self.recordPath = recordPath
        self.isDeterministic = isDeterministic
        self.seed = seed
    }

    /// The options again as arguments, minus `--record`: what a transcript needs to be replayed.
    public var replayArguments: [String] {
        isDeterministic ? ["--deterministic", "--seed", String(seed)] : []
    }

    public enum Action: Equatable {
        case serve(ServerOptions)
        case help
        case version
    }

    /// Parses arguments (without the program name); throws a message for a bad command line.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Action {
        var options = ServerOptions()
        var sawSeed = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            let start = options.daemonArguments.count
            options.daemonArguments.append(argument)
            switch argument {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--record":
                guard let path = rest.popFirst() else { throw UsageError("--record needs a file path") }
                options.recordPath = path
                options.daemonArguments.append(path)
            case "--state":
                guard let directory = rest.popFirst() else { throw UsageError("--state needs a directory") }
                options.stateDirectory = directory
                options.daemonArguments.append(directory)
            case "--deterministic":
                options.isDeterministic = true
            case "--listen":
                guard let path = rest.popFirst() else { throw UsageError("--listen needs a socket path, or auto") }
                options.listenPath = path
                options.daemonArguments.removeSubrange(start...)
            case "--remote":
                guard let path = rest.popFirst() else { throw UsageError("--remote needs a socket path, or auto") }
                options.remotePath = path
                options.daemonArguments.removeSubrange(start...)
            case "--idle-exit":
                guard let text = rest.popFirst(), let seconds = Int(text), seconds >= 0 else {
                    throw UsageError("--idle-exit needs a number of seconds (0 or more)")
                }
                options.idleExit = seconds
                options.daemonArguments.append(text)
            case "--max-client-backlog":
                guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                    throw UsageError("--max-client-backlog needs a positive integer")
                }
                options.limits.clientBacklog = value
                options.daemonArguments.append(text)
            case "--max-message-size", "--max-depth", "--max-sessions", "--max-in-flight":
                guard let text = rest.popFirst(), let value = Int(text), value > 0 else {
                    throw UsageError("\(argument) needs a positive integer")
                }
                options.daemonArguments.append(text)
                switch argument {
                case "--max-message-size": options.limits.reader.messageSize = value
                case "--max-depth": options.limits.reader.depth = value
                case "--max-sessions": options.limits.sessions = value
                default: options.limits.inFlight = value
                }
            case "--seed":
                guard let text = rest.popFirst(), let seed = UInt64(text) else {
                    throw UsageError("--seed needs a non-negative integer")
                }
                options.seed = seed
                options.daemonArguments.append(text)
                sawSeed = true
            default:
                if argument.hasPrefix("--record=") {
                    options.recordPath = String(argument.dropFirst("--record=".count))
                } else {
                    throw UsageError("unknown argument \"\(argument)\"")
                }
            }
        }
        if options.listenPath != nil, options.remotePath != nil {
            throw UsageError("--listen and --remote exclude each other: a forwarder starts its own listening daemon")
        }
        if options.recordPath != nil, options.listenPath != nil || options.remotePath != nil {
            throw UsageError("--record records a stdio exchange; it does not apply with --listen or --remote")
        }
        if options.idleExit != nil, options.listenPath == nil, options.remotePath == nil {
            throw UsageError("--idle-exit applies to a listening daemon (--listen, or one --remote starts)")
        }
        if sawSeed, !options.isDeterministic {
            throw UsageError("--seed only applies with --deterministic (the live random source is the system's)")
        }
        return .serve(options)
    }

    public static func usage(name: String) -> String {
        """
        usage: \(name) [--record FILE] [--state DIR] [--deterministic [--seed N]] [--max-... N]
               \(name) --listen PATH|auto [--idle-exit SECONDS] [options]
               \(name) --remote PATH|auto [options]

        Serves one client over JSON-RPC 2.0 on stdin/stdout: LSP framing (Content-Length headers)
        or newline-delimited JSON, detected from the first byte. Logs go to stderr.

        shared daemon:
          --listen PATH   serve any number of clients on a Unix-domain socket at PATH (mode 0600,
                          in a directory of the user's that others cannot write); sessions opened
                          with the same type and key are shared by the clients that open them
          --remote PATH   relay stdin/stdout to the daemon at PATH, starting one (with the other
                          options given here, and --idle-exit 60) if none answers
                          auto: $XDG_RUNTIME_DIR/bindery/daemon.sock, else /tmp/bindery-UID/daemon.sock
          --idle-exit SECONDS   a listening daemon exits this long after its last client leaves
          --max-client-backlog BYTES   unread output after which a client is disconnected (16777216)

        options:
          --record FILE   write every message in and out to FILE as JSON lines (a transcript)
          --state DIR     keep keyed sessions in DIR, so that reopening a key after a restart
                          finds its fields (written 250 ms after each change and at exit)
          --deterministic use a virtual clock that moves only on clock/advance, seeded
                          randomness and sequential ids, so that runs repeat exactly
          --seed N        the random seed under --deterministic (default 1)
          --max-message-size BYTES   largest message read (default 16777216)
          --max-depth N              deepest nesting of arrays and objects (default 512)
          --max-sessions N           sessions open at once (default 100000)
          --max-in-flight N          async commands running at once (default 10000)
          --version       print the version, and how sessions follow their models, and exit
          -h, --help      print this help and exit

        SIGTERM and SIGINT end the daemon with code 0 once running commands have answered, or
        within 2 seconds in any case (commands still running then answer -32800).
        """
    }

    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
