import Bindery

/// Serves one client over a ``Connection``: runs each message it sends as one turn over the
/// sessions, and sends the changes that turn caused, then its response.
///
/// The server owns no file descriptor and never ends the process: it handles what its connection
/// hands it and, when the exchange is over, tells the connection with what exit code
/// (``Connection/close(exitCode:)``). So the same server runs a daemon over stdio and a test
/// in-process over an ``InMemoryConnection``.
///
/// What clients share — sessions, dependencies, `--state` — is its ``SessionHub``'s: a stdio
/// daemon's server has a hub of its own; under `binderyd --listen` each connected client has a
/// server over the daemon's one hub, with its own framing, capabilities, lifecycle (`initialize`,
/// `shutdown`, `exit` end its exchange only), request ids and running commands.
///
/// Threading: main actor only, like the view models. Input is handled in arrival order, one item
/// at a time; a batch's elements become items of their own, so that everything that holds input
/// back (`clock/advance`, a cancellation unwinding) holds back later batch elements too.
@MainActor
public final class Server {
    let hub: SessionHub
    let connection: any Connection
    /// This client's number in its hub (from 1); ``ChangeCause/origin`` of the changes it causes.
    let clientNumber: Int
    /// The ids of the sessions this client is attached to (shared hubs only: alone, every session is its).
    var attached: Set<Int> = []
    /// Whether this client can apply list splices (`initialize` capabilities).
    var wantsSplices = false
    /// Whether this client asked for `display` (see Server+Text).
    var wantsDisplay = false

    var options: ServerOptions { hub.options }
    var serverInfo: (name: String, version: String) { hub.serverInfo }
    var dependencies: Dependencies { hub.dependencies }
    var table: SessionTable { hub.table }
    /// `--state DIR`: where keyed sessions are kept across restarts.
    var store: SessionStore? { hub.store }

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
    /// How closures that may outlive this server refer to it (instead of `weak`: see ServerReference).
    private(set) var reference: ServerReference!
    /// The scope of the last request, reused by the next one when no task kept it (see ``RequestScope``).
    private var lastScope = RequestScope(id: .int(0))

    /// A server for the one client of a daemon (stdio, or in-process), with a hub of its own.
    ///
    /// - Parameters:
    ///   - registry: the view model types clients may open.
    ///   - options: the daemon's options (deterministic mode, limits); recording is the connection's.
    ///   - serverInfo: the name and version `initialize` reports.
    ///   - connection: where messages come from and answers go.
    public convenience init(registry: ViewModelRegistry, options: ServerOptions = ServerOptions(),
                            serverInfo: (name: String, version: String) = ("binderyd", "0"), connection: any Connection) {
        let hub = SessionHub(registry: registry, options: options, serverInfo: serverInfo)
        self.init(hub: hub, connection: connection, clientNumber: 0)
        hub.adopt(self)
    }

    /// A server for one client of `hub` (see ``SessionHub/connect(_:)``).
    init(hub: SessionHub, connection: any Connection, clientNumber: Int) {
        self.hub = hub
        self.connection = connection
        self.clientNumber = clientNumber
        reference = ServerReference(self)
    }

    deinit {
        reference.server = nil
    }

    /// Starts handling what the connection delivers.
    public func start() {
        connection.start { [reference] items in reference?.server?.receive(items) }
    }

    private func receive(_ items: [Inbound]) {
        queue.append(contentsOf: items.lazy.map { item -> WorkItem in
            switch item {
            case .message(let json, _): .message(json, batch: nil)
            case .request(let request, _): .flat(request)
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
        /// A request read without a tree (never in a batch).
        case flat(FlatRequest)
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
            handleTurn(IncomingMessage(json), batch: batch)
        case .flat(let request):
            sendChanges()  // what happened since the last turn goes first, with its own cause
            handleRequestTurn(id: .int(request.id), request.method, .flat(request.params), batch: nil)
        case .malformed(let error):
            send(OutgoingMessage.response(id: nil, error: error))
        case .end:
            endOfInput()
        }
    }

    /// One message as one turn: the changes it causes are sent before its response.
    private func handleTurn(_ message: IncomingMessage, batch: BatchReply?) {
        // Changes from before this message (timers, async steps) go out first, with their own cause.
        sendChanges()
        switch message {
        case .invalid(let id, let error):
            answer(id, .error(error), in: batch)
        case .response:
            batch.map { recordNoAnswer(in: $0) }
        case .notification(let method, let params):
            inTurn { handleNotification(method, params) }
            sendChanges()
            batch.map { recordNoAnswer(in: $0) }
        case .request(let id, let method, let params):
            handleRequestTurn(id: id, method, .json(params), batch: batch)
        }
    }

    /// A request's part of its turn: handled, the changes it caused sent, then its answer — after
    /// which its scope is closed, so what its tasks change later carries no cause.
    private func handleRequestTurn(id: RequestID?, _ method: String, _ params: RequestParams, batch: BatchReply?) {
        let reply: Reply
        // Shared: the changes this request causes name this client, whose id it is.
        let scope = id.map { RequestScope.reusing(&lastScope, for: $0, origin: hub.isShared ? clientNumber : nil) }
        if isShutDown {
            reply = .error(.invalidRequest("the server has shut down; only \"exit\" is accepted"))
        } else {
            reply = runRequest(method, params, id: id, scope: scope, batch: batch)
        }
        sendChanges()
        // An async invoke answers later; its completion closes the scope (see Server+Invoke).
        if case .later = reply { return }
        answer(id, reply, in: batch)
        scope?.close()
    }

    /// Handles a request in a turn, on its behalf (its id is the cause of what it changes).
    /// A method, not a closure kept in a variable: such a closure checks its isolation at every call.
    private func runRequest(_ method: String, _ params: RequestParams, id: RequestID?, scope: RequestScope?,
                            batch: BatchReply?) -> Reply {
        ChangeCause.$scope.withValue(scope) {
            inTurn {
                do throws(RPCError) {
                    return try handleRequest(method, params, id: id, batch: batch)
                } catch {
                    return .error(error)
                }
            }
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
        if batch == nil, !isClosed {
            // The common cases, written without building the envelope.
            switch reply {
            case .result(let result):
                return connection.send { OutgoingMessage.writeResponse(id: id, result: result, to: &$0) }
            case .revision(let revision):
                return connection.send { output in
                    OutgoingMessage.writeResponse(id: id, to: &output) { output in
                        output.append(#"{"revision":"#)
                        output.write(revision)
                        output.append("}")
                    }
                }
            case .error, .later: break
            }
        }
        let response: JSONValue
        switch reply {
        case .result(let result): response = OutgoingMessage.response(id: id, result: result)
        case .revision(let revision): response = OutgoingMessage.response(id: id, result: ["revision": .int(revision)])
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

    /// Queues one didChange per session that changed, in order of session id, to every client
    /// that must be told (see ``SessionHub/sendChanges()``).
    func sendChanges() {
        hub.sendChanges()
    }

    /// `{"jsonrpc":"2.0","method":"didChange","params":{session, revision, changes, splices?,
    /// children?, detached?, cause?}}`, written from its parts: one per changed session per turn
    /// per client, so the envelope is not built as a JSONValue first.
    static func didChangeBytes(session: Int, revision: Int, changes: JSONObject, splices: JSONObject,
                               children: JSONObject = JSONObject(), detached: [Int] = [],
                               cause: RequestID?, display: JSONObject? = nil) -> [UInt8] {
        var arrays = JSONWriter.ArrayBytes()
        return JSONWriter.bytes { output in
            writeDidChange(session: session, revision: revision, changes: changes, splices: splices,
                           children: children, detached: detached, cause: cause, display: display,
                           to: &output, arrays: &arrays)
        }
    }

    /// Writes the `didChange` that ``didChangeBytes(session:revision:changes:splices:children:detached:cause:)``
    /// makes; a list in `changes` already written with the same `arrays` is copied, not written again.
    static func writeDidChange(session: Int, revision: Int, changes: JSONObject, splices: JSONObject,
                               children: JSONObject, detached: [Int], cause: RequestID?, display: JSONObject? = nil,
                               to output: inout JSONWriter.Output, arrays: inout JSONWriter.ArrayBytes) {
        output.append(#"{"jsonrpc":"2.0","method":"didChange","params":{"session":"#)
        output.write(session)
        output.append(#","revision":"#)
        output.write(revision)
        output.append(#","changes":"#)
        output.write(changes, reusing: &arrays)
        if !splices.isEmpty {
            output.append(#","splices":"#)
            output.write(.object(splices))
        }
        if !children.isEmpty {
            output.append(#","children":"#)
            output.write(.object(children))
        }
        if !detached.isEmpty {
            output.append(#","detached":"#)
            output.write(.array(detached.map(JSONValue.int)))
        }
        if let cause {
            output.append(#","cause":"#)
            output.write(cause.json)
        }
        if let display {
            output.append(#","display":"#)
            output.write(.object(display))
        }
        output.append("}}")
    }

    func send(_ message: JSONValue) {
        guard !isClosed else { return }
        connection.send(JSONWriter.bytes(message))
    }

    /// Writes what waits: this client's answers, and (shared) the changes other clients were sent.
    func flush() {
        if hub.isShared { return hub.flushAll() }
        flushConnection()
    }

    func flushConnection() {
        guard !isClosed else { return }
        connection.flush()
    }
}

/// What a request handler answers.
enum Reply {
    case result(JSONValue)
    /// `{"revision": N}`: a result so common (every `setField`) that it is written without a tree.
    case revision(Int)
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
