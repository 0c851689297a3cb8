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
    /// Parses the command line, then serves one client on stdin/stdout until it sends `exit` or
    /// closes stdin. Never returns.
    @MainActor
    public static func run(registry: ViewModelRegistry, name: String, version: String,
                           arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let options: ServerOptions
        do {
            switch try ServerOptions.parse(arguments) {
            case .help:
                print(ServerOptions.usage(name: name))
                exit(0)
            case .version:
                print("\(name) \(version)")
                exit(0)
            case .serve(let parsed):
                options = parsed
            }
        } catch {
            StandardStreams.log("\(name): \(error)\nTry '\(name) --help' for the options.")
            exit(2)
        }
        let output = StandardStreams.takeStdoutForProtocol()
        let server = Server(registry: registry, options: options, serverInfo: (name, version),
                            input: STDIN_FILENO, output: output)
        server.start()
        withExtendedLifetime(server) { dispatchMain() }
    }
}
