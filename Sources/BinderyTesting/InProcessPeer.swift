import BinderyServer
import BinderyTranscript
import JSONRPC

/// A replay's daemon in this process: the same ``Server`` a daemon runs, over an
/// ``InMemoryConnection``, serving the registry under test. Main actor only, like the server.
@MainActor
final class InProcessPeer: ReplayPeer {
    private let connection: InMemoryConnection
    private let server: Server
    private let framing: Framing

    init(registry: ViewModelRegistry, options: ServerOptions, framing: Framing, serverInfo: (name: String, version: String)) {
        self.framing = framing
        connection = InMemoryConnection(framing: framing, limits: options.limits.reader)
        server = Server(registry: registry, options: options, serverInfo: serverInfo, connection: connection)
        server.start()
    }

    func send(_ body: [UInt8]) async {
        var bytes: [UInt8] = []
        framing.frame(body, into: &bytes)
        connection.deliver(bytes: bytes)
    }

    func endInput() async { connection.deliverEnd() }

    func next() async -> [UInt8]? { await connection.next(timeout: Self.hangGuard) }

    /// Lets the server's tasks, and the view models' own (on the main actor for a deterministic
    /// replay: SerialJobs), run until they wait; then a moment of real time for a live clock's.
    func nextBeforeQuiet() async -> [UInt8]? {
        await SerialJobs.settle()
        if let body = await connection.next(timeout: .zero) { return body }
        return await connection.next(timeout: .milliseconds(100))
    }

    func exitCode() async -> Int32? { await connection.waitForClose(timeout: Self.hangGuard) }

    /// How long a replay waits for a message that must come before calling the daemon hung: not a
    /// time limit (tests share the machine's cores with everything else).
    static let hangGuard = Duration.seconds(60)
}
