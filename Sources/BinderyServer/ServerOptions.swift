/// The daemon's command line.
public struct ServerOptions: Sendable, Equatable {
    /// `--record FILE`: write the whole exchange there as JSON lines (see ``Recorder``).
    public var recordPath: String?
    /// `--deterministic`: a virtual clock moved by `clock/advance`, seeded randomness, sequential ids.
    public var isDeterministic = false
    /// `--seed N`: the seed of the random source under `--deterministic` (default 1).
    public var seed: UInt64 = 1

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
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": return .help
            case "--version": return .version
            case "--record":
                guard let path = rest.popFirst() else { throw UsageError("--record needs a file path") }
                options.recordPath = path
            case "--deterministic":
                options.isDeterministic = true
            case "--seed":
                guard let text = rest.popFirst(), let seed = UInt64(text) else {
                    throw UsageError("--seed needs a non-negative integer")
                }
                options.seed = seed
            default:
                if argument.hasPrefix("--record=") {
                    options.recordPath = String(argument.dropFirst("--record=".count))
                } else {
                    throw UsageError("unknown argument \"\(argument)\"")
                }
            }
        }
        return .serve(options)
    }

    public static func usage(name: String) -> String {
        """
        usage: \(name) [--record FILE] [--deterministic [--seed N]]

        Serves one client over JSON-RPC 2.0 on stdin/stdout: LSP framing (Content-Length headers)
        or newline-delimited JSON, detected from the first byte. Logs go to stderr.

        options:
          --record FILE   write every message in and out to FILE as JSON lines (a transcript)
          --deterministic use a virtual clock that moves only on clock/advance, seeded
                          randomness and sequential ids, so that runs repeat exactly
          --seed N        the random seed under --deterministic (default 1)
          --version       print the version and exit
          -h, --help      print this help and exit
        """
    }

    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
