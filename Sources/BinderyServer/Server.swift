import Bindery

/// Serves one client over a ``Connection``: runs each message it sends as one turn over the
/// sessions, and sends the changes that turn caused, then its response.
///
/// The server owns no file descriptor and never ends the process: it handles what its connection
/// hands it and, when the exchange is over, tells the connection with what exit code
/// (``Connection/close(exitCode:)``). So the same server runs a daemon over stdio and a test
/// in-process over an ``InMemoryConnection``.
///
/// Threading: main actor only, like the view models. Input is handled in arrival order, one item
/// at a time; a batch's elements become items of their own, so that everything that holds input
/// back (`clock/advance`, a cancellation unwinding) holds back later batch elements too.
@MainActor
public final class Server {
    let options: ServerOptions
    let serverInfo: (name: String, version: String)
    let dependencies: Dependencies
    let table: SessionTable
    let connection: any Connection
    /// `--state DIR`: where keyed sessions are kept across restarts.
    let store: SessionStore?

    var isShutDown = false
    /// Async invokes still running, by request id, for `$/cancelRequest`.
    var inFlight: [RequestID: Task<Void, Never>] = [:]
    var inFlightCount = 0
    /// Why the exchange is ending, once it is; running commands cancelled then say so.
    var exitReason: String?
    var exitCode: Int32 = 0
    var isClosed = false
    /// Input read but not yet handled, oldest first.
    private var queue = InputQueue<WorkItem>()
    /// While positive, input waits in the queue: `clock/advance`, a cancellation unwinding, the end.
    private var inputHolds = 0
    /// Released when commands cancelled by a `session/close` or `$/cancelRequest` have answered.
    var cancellationHold: CancellationHold?

    /// - Parameters:
    ///   - registry: the view model types clients may open.
    ///   - options: the daemon's options (deterministic mode, limits); recording is the connection's.
    ///   - serverInfo: the name and version `initialize` reports.
    ///   - connection: where messages come from and answers go.
    public init(registry: ViewModelRegistry, options: ServerOptions = ServerOptions(),
                serverInfo: (name: String, version: String) = ("binderyd", "0"), connection: any Connection) {
        self.options = options
        self.serverInfo = serverInfo
        self.dependencies = options.isDeterministic ? .deterministic(seed: options.seed) : .live()
        self.table = SessionTable(registry: registry, dependencies: dependencies)
        self.connection = connection
        self.store = options.stateDirectory.flatMap { directory in
            do {
                return try SessionStore(directory: directory)
            } catch {
                StandardStreams.log("\(serverInfo.name): error: --state: \(error); sessions will not be kept")
                return nil
            }
        }
    }

    /// Starts handling what the connection delivers.
    public func start() {
        if let store { table.onSessionChanged = { [weak store] session in store?.sessionChanged(session) } }
        // Weak: a server run in-process may be gone while a task it started still runs.
        table.onDeferredChanges = { [weak self] in
            self?.sendChanges()
            self?.flush()
        }
        connection.start { [weak self] items in self?.receive(items) }
    }

    private func receive(_ items: [Inbound]) {
        queue.append(contentsOf: items.lazy.map { item -> WorkItem in
            switch item {
            case .message(let json, _): .message(json, batch: nil)
            case .malformed(let error, _): .malformed(error)
            case .end: .end
            }
        })
        handleQueue()
    }

    // MARK: Input

    /// What waits to be handled: a message (or an element of a batch), a frame that could not be
    /// read, or the end of the client's input.
    private enum WorkItem {
        case message(JSONValue, batch: BatchReply?)
        case malformed(RPCError)
        case end
    }

    /// Holds input back until ``releaseInput()``: what arrives meanwhile waits, in order.
    func holdInput() {
        inputHolds += 1
    }

    func releaseInput() {
        inputHolds -= 1
        handleQueue()
    }

    /// Handles what waits, in order, until the queue is empty or input is held; then writes.
    private func handleQueue() {
        while inputHolds == 0, !isClosed, let item = queue.popFirst() {
            handle(item)
        }
        flush()
    }

    private func handle(_ item: WorkItem) {
        switch item {
        case .message(.array(let elements), batch: nil):
            guard !elements.isEmpty else {
                return send(OutgoingMessage.response(id: nil, error: .invalidRequest("an empty batch")))
            }
            // The elements go first in line, each a turn of its own, answered together.
            let batch = BatchReply(elements: elements.count)
            queue.prepend(contentsOf: elements.lazy.map { WorkItem.message($0, batch: batch) })
        case .message(let json, let batch):
            handleTurn(json, batch: batch)
        case .malformed(let error):
            send(OutgoingMessage.response(id: nil, error: error))
        case .end:
            endOfInput()
        }
    }

    /// One message as one turn: the changes it causes are sent before its response.
    private func handleTurn(_ json: JSONValue, batch: BatchReply?) {
        // Changes from before this message (timers, async steps) go out first, with their own cause.
        sendChanges()
        switch IncomingMessage(json) {
        case .invalid(let id, let error):
            answer(id, .error(error), in: batch)
        case .response:
            batch.map { recordNoAnswer(in: $0) }
        case .notification(let method, let params):
            inTurn { handleNotification(method, params) }
            sendChanges()
            batch.map { recordNoAnswer(in: $0) }
        case .request(let id, let method, let params):
            let reply: Reply
            if isShutDown {
                reply = .error(.invalidRequest("the server has shut down; only \"exit\" is accepted"))
            } else {
                reply = ChangeCause.$current.withValue(id) {
                    inTurn {
                        do throws(RPCError) {
                            return try handleRequest(method, params, id: id, batch: batch)
                        } catch {
                            return .error(error)
                        }
                    }
                }
            }
            sendChanges()
            if case .later = reply { return }
            answer(id, reply, in: batch)
        }
    }

    private func inTurn<T>(_ body: () -> T) -> T {
        table.isInTurn = true
        defer { table.isInTurn = false }
        return body()
    }

    // MARK: Output

    /// Sends the response to request `id`, or keeps it for its batch's array.
    func answer(_ id: RequestID?, _ reply: Reply, in batch: BatchReply?, slot: Int? = nil) {
        if batch == nil, case .result(let result) = reply, !isClosed {
            // The common case, written without building the envelope.
            return connection.send(OutgoingMessage.responseBytes(id: id, result: result))
        }
        let response: JSONValue
        switch reply {
        case .result(let result): response = OutgoingMessage.response(id: id, result: result)
        case .error(let error): response = OutgoingMessage.response(id: id, error: error)
        case .later: return
        }
        guard let batch else { return send(response) }
        if let slot { batch.fill(slot, with: response) } else { batch.append(response) }
        sendIfComplete(batch)
    }

    private func recordNoAnswer(in batch: BatchReply) {
        batch.elementNeedsNoAnswer()
        sendIfComplete(batch)
    }

    private func sendIfComplete(_ batch: BatchReply) {
        guard batch.isComplete, let array = batch.responses else { return }
        send(array)
    }

    /// Queues one didChange per session that changed, in order of session id.
    func sendChanges() {
        for (session, cause, found) in table.collectChangeSets() where !isClosed {
            // `{"jsonrpc":"2.0","method":"didChange","params":{session, revision, changes, splices?,
            // children?, detached?, cause?}}`, written from its parts: one per changed session per
            // turn, so the envelope is not built as a JSONValue first.
            connection.send(JSONWriter.bytes { output in
                output.append(#"{"jsonrpc":"2.0","method":"didChange","params":{"session":"#)
                output.write(session.id)
                output.append(#","revision":"#)
                output.write(session.revision)
                output.append(#","changes":"#)
                output.write(.object(found.changes))
                if !found.splices.isEmpty {
                    output.append(#","splices":"#)
                    output.write(.object(found.splices))
                }
                if !found.children.isEmpty {
                    output.append(#","children":"#)
                    output.write(.object(found.children))
                }
                if !found.detached.isEmpty {
                    output.append(#","detached":"#)
                    output.write(.array(found.detached.map(JSONValue.int)))
                }
                if let cause {
                    output.append(#","cause":"#)
                    output.write(cause.json)
                }
                output.append("}}")
            })
        }
    }

    func send(_ message: JSONValue) {
        guard !isClosed else { return }
        connection.send(JSONWriter.bytes(message))
    }

    func flush() {
        guard !isClosed else { return }
        connection.flush()
    }
}

/// What a request handler answers.
enum Reply {
    case result(JSONValue)
    case error(RPCError)
    /// An async command still running: it answers when it ends.
    case later
}

/// The conditions under which input held for cancelled commands may flow again.
@MainActor
final class CancellationHold {
    var conditions: [@MainActor () -> Bool]
    /// Releases the hold after two seconds if the commands ignore their cancellation.
    var watchdog: Task<Void, Never>?
    init(_ condition: @escaping @MainActor () -> Bool) { conditions = [condition] }
}
