import Bindery

/// What the clients of one daemon share: the view model registry, the dependencies (one clock, one
/// movie store), the sessions and `--state`; and, under `binderyd --listen`, which client is
/// attached to which session.
///
/// A stdio daemon has one client (one ``Server``) and its hub is that client's alone: every session
/// is its, and changes go straight to it, as they always have. A listening daemon has a ``Server``
/// per connected client over one hub (``isShared``): a session opened with a `key` is shared by
/// every client that opens the same type and key — each is attached to it, with its own `observe`
/// set — and an unkeyed session is attached to the client that opened it only. A session lives
/// while a client is attached to it.
///
/// Threading: main actor only, like the servers and the sessions.
@MainActor
public final class SessionHub {
    let options: ServerOptions
    let serverInfo: (name: String, version: String)
    let dependencies: Dependencies
    let table: SessionTable
    /// `--state DIR`: where keyed sessions are kept across restarts.
    let store: SessionStore?
    /// Whether several clients may connect (`--listen`): then sessions have attachments, causes
    /// name the client they came from, and changes are fanned out.
    public let isShared: Bool

    /// The connected clients, in the order they connected.
    private(set) var clients: [Server] = []
    private var nextClientNumber = 1
    /// Per session id, the clients attached to it, in the order they attached (shared hubs only).
    var attachments: [Int: [Attachment]] = [:]
    /// Values clients wrote this turn that they are not told (no echo) but the other clients of
    /// the session must be, by session id (shared hubs only).
    var writesToTell: [Int: WrittenFields] = [:]
    /// The last `clock/advance` started, by any client: the next one waits for it.
    var lastClockAdvance: Task<Void, Never>?
    /// Called when the last client has gone (a listening daemon's idle exit).
    public var onLastClientGone: (@MainActor () -> Void)?

    /// - Parameters:
    ///   - registry: the view model types clients may open.
    ///   - options: the daemon's options.
    ///   - serverInfo: the name and version `initialize` reports.
    ///   - isShared: true for a daemon serving several clients (`--listen`).
    public init(registry: ViewModelRegistry, options: ServerOptions = ServerOptions(),
                serverInfo: (name: String, version: String) = ("binderyd", "0"), isShared: Bool = false) {
        self.options = options
        self.serverInfo = serverInfo
        self.isShared = isShared
        self.dependencies = options.isDeterministic ? .deterministic(seed: options.seed) : .live()
        self.table = SessionTable(registry: registry, dependencies: dependencies)
        table.keepsOrigins = isShared
        self.store = options.stateDirectory.flatMap { directory in
            do {
                return try SessionStore(directory: directory)
            } catch {
                StandardStreams.log("\(serverInfo.name): error: --state: \(error); sessions will not be kept")
                return nil
            }
        }
        if let store { table.onSessionChanged = { [weak store] session in store?.sessionChanged(session) } }
        // Weak: a hub run in-process may be gone while a task it started still runs.
        table.onDeferredChanges = { [weak self] in
            self?.sendChanges()
            self?.flushAll()
        }
    }

    /// A new client on `connection`: its server, started.
    @discardableResult
    public func connect(_ connection: any Connection) -> Server {
        let server = Server(hub: self, connection: connection, clientNumber: nextClientNumber)
        nextClientNumber += 1
        clients.append(server)
        server.start()
        return server
    }

    /// Whether any client is connected.
    public var hasClients: Bool { !clients.isEmpty }

    /// A client's exchange ended (it closed, or its connection was lost): it is detached from every
    /// session, and a session left with no client is closed — its commands cancelled; under
    /// `--state` a keyed one is written first and its file kept, so reopening the key restores it.
    func clientEnded(_ server: Server) {
        guard let index = clients.firstIndex(where: { $0 === server }) else { return }
        clients.remove(at: index)
        if isShared {
            for id in server.attached.sorted() where detach(server, from: id) {
                store?.flush()
                table.close(id)
            }
        }
        if clients.isEmpty { onLastClientGone?() }
    }

    /// Writes what every client has waiting.
    func flushAll() {
        for client in clients { client.flushConnection() }
    }

    /// SIGTERM or SIGINT: every client's exchange ends as it would alone (see ``Server/terminate(signal:)``).
    public func terminate(signal name: String) {
        for client in clients { client.terminate(signal: name) }
    }

    /// Writes every keyed session changed since it was last written (`--state`), at the daemon's end.
    public func flushStore() {
        store?.flush()
    }
}

/// One client attached to a session, with what it observes of it.
@MainActor
struct Attachment {
    unowned let client: Server
    /// The members this client observes; nil for all of them.
    var observed: Set<String>?
}

/// Fields one client wrote in a turn, to tell the session's other clients.
struct WrittenFields {
    /// The client that wrote them (and is not told).
    let writer: Int
    /// The request that wrote them.
    let cause: RequestID?
    var fields: [(name: String, value: JSONValue)]
}

extension SessionHub {
    /// Takes `server`, made for this hub, as its client (a stdio daemon's only one).
    func adopt(_ server: Server) {
        clients.append(server)
    }
}
