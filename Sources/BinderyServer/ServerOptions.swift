/// The daemon's command line.
public struct ServerOptions: Sendable, Equatable {
    /// `--record FILE`: write the whole exchange there as JSON lines (see ``Recorder``).
    public var recordPath: String?

    public init(recordPath: String? = nil) {
        self.recordPath = recordPath
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
        usage: \(name) [--record FILE]

        Serves one client over JSON-RPC 2.0 on stdin/stdout: LSP framing (Content-Length headers)
        or newline-delimited JSON, detected from the first byte. Logs go to stderr.

        options:
          --record FILE   write every message in and out to FILE as JSON lines (a transcript)
          --version       print the version and exit
          -h, --help      print this help and exit
        """
    }

    public struct UsageError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
