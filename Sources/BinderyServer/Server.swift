#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Bindery

/// Serves one client: reads its messages, runs each request as one turn over the sessions, and
/// writes the changes that turn caused, then its response.
///
/// Threading: the reader thread frames and parses; everything else — dispatch, view models,
/// change collection, encoding, writing — runs on the main actor, one drain of the input at a
/// time. Output is buffered during a drain and written once at its end.
@MainActor
final class Server {
    let options: ServerOptions
    let serverInfo: (name: String, version: String)
    let dependencies: Dependencies
    let table: SessionTable
    let reader: MessageReader
    let writer: MessageWriter
    let recorder: Recorder?

    var isShutDown = false
    /// Async invokes still running, by request id, for `$/cancelRequest`.
    var inFlight: [RequestID: Task<Void, Never>] = [:]
    var inFlightCount = 0
    /// Set when stdin ends, or a SIGTERM arrives, while commands still run: exit once they have
    /// answered. Says why, for the answer of a command cancelled on the way out.
    var exitReason: String?
    private var signalSources: [any DispatchSourceSignal] = []
    /// Messages read but not yet handled, oldest first, from `backlogStart` on.
    private var backlog: [Inbound] = []
    private var backlogStart = 0
    /// While true (during `clock/advance`), messages wait in the backlog: requests keep their order.
    private var isInputPaused = false

    init(registry: ViewModelRegistry, options: ServerOptions, serverInfo: (name: String, version: String),
         input: Int32, output: Int32) {
        self.options = options
        self.serverInfo = serverInfo
        self.dependencies = options.isDeterministic ? .deterministic(seed: options.seed) : .live()
        self.table = SessionTable(registry: registry, dependencies: dependencies)
        self.reader = MessageReader(fileDescriptor: input, maximumMessageSize: options.limits.messageSize,
                                    maximumDepth: options.limits.depth, queueLimit: options.limits.readAhead)
        self.writer = MessageWriter(fileDescriptor: output)
        self.recorder = options.recordPath.map { Recorder(path: $0, arguments: options.replayArguments) }
    }

    func start() {
        table.onDeferredChanges = { [unowned self] in
            sendChanges()
            flushOutput()
        }
        // A main-actor task, not a bare main-queue block: `Task.immediate` (async commands) runs
        // synchronously only when it can see that it is already on the main actor.
        reader.start {
            Task { @MainActor in self.drain() }
        }
        handleTerminationSignals()
    }

    /// Ends the process once the commands still running have answered.
    private func exitWhenIdle(because reason: String) {
        flushOutput()
        if inFlightCount == 0 { terminate(code: 0) }
        exitReason = reason
        // On the virtual clock nobody is left to move time: cancel rather than wait forever.
        if dependencies.isDeterministic { inFlight.values.forEach { $0.cancel() } }
    }

    /// SIGTERM and SIGINT: stop taking requests, let running commands answer for up to two
    /// seconds, then cancel what is left and exit with code 0.
    private func handleTerminationSignals() {
        for number in [SIGTERM, SIGINT] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { [unowned self] in
                MainActor.assumeIsolated {
                    let name = number == SIGTERM ? "SIGTERM" : "SIGINT"
                    StandardStreams.log("\(serverInfo.name): info: \(name): exiting once running commands answer")
                    pauseInput()
                    exitWhenIdle(because: "the daemon received \(name)")
                    Task { @MainActor in
                        try? await Task.sleep(for: .seconds(2))
                        inFlight.values.forEach { $0.cancel() }
                        await settleMainActor(until: { self.inFlightCount == 0 }, maximumRounds: 1000)
                        flushOutput()
                        terminate(code: 0)
                    }
                }
            }
            source.resume()
            signalSources.append(source)
        }
    }

    /// Handles everything read so far, in order, then writes all the answers at once.
    private func drain() {
        backlog += reader.takeAll()
        handleBacklog()
    }

    /// Stops handling input until ``resumeInput()``: what arrives meanwhile waits, in order.
    func pauseInput() {
        isInputPaused = true
    }

    func resumeInput() {
        isInputPaused = false
        handleBacklog()
    }

    private func handleBacklog() {
        while !isInputPaused, backlogStart < backlog.count {
            let item = backlog[backlogStart]
            backlogStart += 1
            switch item {
            case .message(let json, let body):
                recorder?.recordIn(body, framing: reader.framing)
                if let reply = handleTopLevel(json) { send(reply) }
            case .malformed(let error, let body):
                recorder?.recordInRaw(body, framing: reader.framing)
                send(OutgoingMessage.response(id: nil, error: error))
            case .end:
                exitWhenIdle(because: "the client's input ended")
            }
        }
        if backlogStart == backlog.count {
            backlog.removeAll(keepingCapacity: true)
            backlogStart = 0
        }
        flushOutput()
    }

    /// One message or a batch; returns what to write back, if anything.
    private func handleTopLevel(_ json: JSONValue) -> JSONValue? {
        guard case .array(let elements) = json else { return handle(json) }
        guard !elements.isEmpty else {
            return OutgoingMessage.response(id: nil, error: .invalidRequest("an empty batch"))
        }
        let replies = elements.compactMap { handle($0, inBatch: true) }
        return replies.isEmpty ? nil : .array(replies)
    }

    /// One message as one turn: its changes are sent before the response, which is returned.
    private func handle(_ json: JSONValue, inBatch: Bool = false) -> JSONValue? {
        // Changes from before this message (timers, async steps) go out first, with their own cause.
        sendChanges()
        switch IncomingMessage(json) {
        case .invalid(let id, let error):
            return OutgoingMessage.response(id: id, error: error)
        case .response:
            return nil
        case .notification(let method, let params):
            inTurn { handleNotification(method, params) }
            sendChanges()
            return nil
        case .request(let id, let method, let params):
            let reply: Reply
            if isShutDown {
                reply = .error(.invalidRequest("the server has shut down; only \"exit\" is accepted"))
            } else {
                reply = ChangeCause.$current.withValue(id) {
                    inTurn {
                        do throws(RPCError) {
                            return try handleRequest(method, params, id: id, inBatch: inBatch)
                        } catch {
                            return .error(error)
                        }
                    }
                }
            }
            sendChanges()
            switch reply {
            case .result(let result): return OutgoingMessage.response(id: id, result: result)
            case .error(let error): return OutgoingMessage.response(id: id, error: error)
            case .later: return nil
            }
        }
    }

    private func inTurn<T>(_ body: () -> T) -> T {
        table.isInTurn = true
        defer { table.isInTurn = false }
        return body()
    }

    // MARK: Output

    /// Queues one didChange per session that changed, in the order the sessions changed.
    func sendChanges() {
        for (session, cause, changes) in table.collectChanges() {
            var params = JSONObject(minimumCapacity: 4)
            params.append("session", .int(session.id))
            params.append("revision", .int(session.revision))
            params.append("changes", .object(changes))
            if let cause { params.append("cause", cause.json) }
            send(OutgoingMessage.notification(method: "didChange", params: .object(params)))
        }
    }

    func send(_ message: JSONValue) {
        let body = JSONWriter.bytes(message)
        recorder?.recordOut(body)
        writer.enqueue(body, framing: reader.framing ?? .contentLength)
    }

    func flushOutput() {
        recorder?.flush()
        do {
            try writer.flush()
        } catch {
            // The client closed our stdout: nobody is left to answer.
            terminate(code: 0)
        }
    }

    func terminate(code: Int32) -> Never {
        recorder?.flush()
        exit(code)
    }
}

/// What a request handler answers.
enum Reply {
    case result(JSONValue)
    case error(RPCError)
    /// An async command still running: its response is written when it ends.
    case later
}
