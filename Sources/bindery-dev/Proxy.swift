import Dispatch
import Glibc
import JSONRPC

/// The middle of bindery-dev: the client on one side, the daemon currently serving it on the
/// other, and every message between them rewritten in passing so that a reload does not show.
///
/// The client sees session ids of bindery-dev's own (counted from 1, never reused) and revisions
/// that go on across reloads; each daemon sees its own. Requests are forwarded under ids of
/// bindery-dev's own (``Daemon/takeID()``), so its own requests to a daemon never collide with the
/// client's. Meanwhile it folds every session's state as the client holds it (``SessionRecord``),
/// which is what a reload needs to tell the client what changed.
///
/// Threads: all of it is the main actor's; readers hand messages over in order.
@MainActor
final class Proxy {
    let client: ClientIO
    /// The daemon serving the client; nil before the first build succeeds, or after it died.
    private(set) var daemon: Daemon?
    /// A new daemon being moved into during a reload: its messages go to `candidateSent`.
    var candidate: Daemon?
    var candidateSent: ((JSONValue) -> Void)?
    /// Why there is no daemon, when the first build failed or the daemon died; requests are
    /// answered with this until a build succeeds.
    var noDaemonReason: String?

    private(set) var sessions: [Int: SessionRecord] = [:]
    private var byDaemonID: [Int: Int] = [:]
    /// One more than the largest session id the client has been given.
    private(set) var nextSessionID = 1
    /// Sessions the current daemon opens from now on: their ids there start at `firstNewDaemonID`,
    /// and the client knows each as its id there plus `delta`. So a client that pipelines requests
    /// on a session it has just asked to open (knowing ids are counted) is understood: before any
    /// reload the ids are the daemon's own (`delta` 0).
    private var firstNewDaemonID = 1
    private var delta = 0

    /// A client request forwarded to the current daemon, by the id it was forwarded under.
    struct Pending {
        var clientID: RequestID?
        var method: String
        /// The client's session id, for requests on one session.
        var session: Int?
        var params: JSONObject?
        var batch: Int?
        /// For `setField`: a `didChange` it caused carried the field (the daemon stored another value).
        var echoed = false
        /// Cancelled by bindery-dev because the daemon is being replaced.
        var cancelledByReload = false
    }
    private(set) var pending: [Int: Pending] = [:]
    private var forwardedIDs: [RequestID: Int] = [:]
    private var batches: [Int: BatchReply] = [:]
    private var nextBatch = 1
    /// Called once when no forwarded request is left unanswered (see ``settle(timeout:)``).
    private var onSettled: (() -> Void)?

    /// Client input that arrives while a reload switches daemons, handled once it is done.
    private var holding = false
    private var held: [FrameEvent] = []

    /// The client's last `initialize` params, sent again to every new daemon.
    private(set) var initializeParams: JSONValue?
    private var exitRequested = false
    private var clientEnded = false
    /// Runs just before bindery-dev ends (stops a build still running).
    var beforeExit: (() -> Void)?

    init(client: ClientIO) {
        self.client = client
    }

    // MARK: - The daemon

    /// Makes `daemon` the one serving the client, the sessions now being `sessions` (opened in
    /// it in order, so that its next session's id is one more than theirs).
    func install(_ daemon: Daemon, sessions: [SessionRecord]) {
        self.daemon = daemon
        noDaemonReason = nil
        self.sessions = [:]
        byDaemonID = [:]
        for record in sessions {
            self.sessions[record.id] = record
            byDaemonID[record.daemonID] = record.id
        }
        firstNewDaemonID = (sessions.map(\.daemonID).max() ?? 0) + 1
        delta = nextSessionID - firstNewDaemonID
        orphanedFrom = nil
        daemon.onExit { [weak self, weak daemon] code in
            guard let self, let daemon, self.daemon === daemon else { return }
            self.currentDaemonExited(code, summary: daemon.stderrSummary, daemon: daemon)
        }
    }

    /// The daemon that ended on its own while serving, whose sessions wait for the next build.
    private(set) var orphanedFrom: Daemon?

    /// The current daemon ended on its own (not replaced; a view model crashed, say). Requests in
    /// flight are answered with an error and the client is told (`daemon/exited`); the sessions
    /// are kept as the client holds them, and the next successful build starts a daemon and moves
    /// them into it from there (their writable fields from the client's fold).
    private func currentDaemonExited(_ code: Int32, summary: String, daemon dead: Daemon) {
        daemon = nil
        if exitRequested || clientEnded {
            beforeExit?()
            exit(exitRequested ? code : Int32(0))
        }
        orphanedFrom = dead
        let reason = "the daemon exited with code \(code)" + (summary.isEmpty ? "" : ": " + summary)
        noDaemonReason = reason + "; save a source and bindery-dev starts it again, with the open sessions"
        for (id, request) in pending.sorted(by: { $0.key < $1.key }) {
            finish(id, with: OutgoingMessage.response(id: request.clientID, error: RPCError(.internalError, reason)))
        }
        client.send(notification("daemon/exited", ["code": .int(Int(code)), "message": .string(reason)]))
        client.flush()
    }

    /// The client's id of the daemon's session `daemonID`, known or to be opened.
    private func clientSessionID(_ daemonID: Int) -> Int? {
        if let id = byDaemonID[daemonID] { return id }
        return daemonID >= firstNewDaemonID ? daemonID + delta : nil
    }

    // MARK: - Holding input during a switch

    func holdInput() { holding = true }

    /// Whether client input waits: during a switch, or before the first daemon has started.
    private var waiting: Bool { holding || (daemon == nil && noDaemonReason == nil) }

    func releaseInput() {
        holding = false
        guard !waiting else { return }
        let events = held
        held = []
        if !events.isEmpty { clientSent(events) }
        if clientEnded { clientEndedInput() }
    }

    /// Cancels the client's commands still running on the current daemon and waits (at most
    /// `timeout`) for every forwarded request to be answered; those still unanswered then are
    /// answered here, as cancelled. What a running command sees at a reload: it is cancelled, and
    /// its `invoke` answers `-32800` saying the daemon was reloaded.
    func settle(timeout: Duration) async {
        guard let daemon, !pending.isEmpty else { return }
        for (id, request) in pending where request.method == "invoke" && !request.cancelledByReload {
            pending[id]?.cancelledByReload = true
            daemon.send(notification("$/cancelRequest", ["id": .int(id)]))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var resumed = false
            let resume = {
                if !resumed { resumed = true; continuation.resume() }
            }
            onSettled = resume
            let seconds = Double(timeout.components.seconds)
            DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { MainActor.assumeIsolated { resume() } }
        }
        onSettled = nil
        for (id, request) in pending.sorted(by: { $0.key < $1.key }) {
            finish(id, with: OutgoingMessage.response(id: request.clientID, error: Self.reloadCancellation))
        }
        client.flush()
    }

    static let reloadCancellation = RPCError(
        .requestCancelled, "Request cancelled: the daemon was reloaded (bindery-dev); invoke it again")

    // MARK: - From the client

    /// Frames the client sent, in order.
    func clientSent(_ events: [FrameEvent]) {
        if waiting {
            held.append(contentsOf: events)
            return
        }
        for event in events {
            switch event {
            case .error(let message):
                client.send(OutgoingMessage.response(id: nil, error: .parseError(message)))
            case .frame(let bytes):
                do {
                    let value = try JSONParser.parse(bytes)
                    if case .array(let elements) = value { clientSentBatch(elements) } else { clientSentMessage(value) }
                } catch {
                    client.send(OutgoingMessage.response(id: nil, error: .parseError(error.message)))
                }
            }
        }
        client.flush()
    }

    /// The client closed its end: the daemon's input is closed once everything before has been
    /// forwarded, and bindery-dev ends with it.
    func clientEndedInput() {
        clientEnded = true
        guard !waiting else { return }
        guard let daemon else {
            beforeExit?()
            exit(0)
        }
        daemon.process.closeStdin()
    }

    private func clientSentMessage(_ value: JSONValue) {
        switch IncomingMessage(value) {
        case .invalid(let id, let error):
            client.send(OutgoingMessage.response(id: id, error: error))
        case .response:
            break
        case .notification(let method, let params):
            if let message = forwardable(notification: method, params) { daemon?.send(message) }
        case .request(let id, let method, let params):
            switch forward(id: id, method: method, params: params, batch: nil) {
            case .answered(let response): client.send(response)
            case .forwarded(let message, _): daemon?.send(message)
            }
        }
    }

    private func clientSentBatch(_ elements: [JSONValue]) {
        guard !elements.isEmpty else {
            client.send(OutgoingMessage.response(id: nil, error: .invalidRequest("an empty batch")))
            return
        }
        let token = nextBatch
        nextBatch += 1
        var reply = BatchReply()
        var messages: [JSONValue] = []
        for element in elements {
            switch IncomingMessage(element) {
            case .invalid(let id, let error):
                reply.add(OutgoingMessage.response(id: id, error: error))
            case .response:
                break
            case .notification(let method, let params):
                if let message = forwardable(notification: method, params) { messages.append(message) }
            case .request(let id, let method, let params):
                switch forward(id: id, method: method, params: params, batch: token) {
                case .answered(let response): reply.add(response)
                case .forwarded(let message, let daemonID):
                    reply.await(daemonID)
                    messages.append(message)
                }
            }
        }
        if !messages.isEmpty { daemon?.send(.array(messages)) }
        if reply.isComplete {
            if !reply.isEmpty { client.send(reply.json) }
        } else {
            batches[token] = reply
        }
    }

    private enum Forwarding {
        case answered(JSONValue)
        case forwarded(JSONValue, Int)
    }

    /// The request as the daemon gets it (its session id and expected revision in the daemon's
    /// terms, an id of bindery-dev's), or the answer bindery-dev gives itself.
    private func forward(id: RequestID?, method: String, params: JSONValue?, batch: Int?) -> Forwarding {
        guard let daemon else {
            let reason = noDaemonReason ?? "no daemon is running"
            return .answered(OutgoingMessage.response(id: id, error: RPCError(.internalError, "bindery-dev: \(reason)")))
        }
        var params = params
        var session: Int?
        if case .object(var object)? = params, let clientSession = object["session"]?.intValue {
            if let record = sessions[clientSession] {
                session = clientSession
                object["session"] = .int(record.daemonID)
                if let expected = object["expectedRevision"]?.intValue {
                    object["expectedRevision"] = .int(expected - record.offset)
                }
            } else if clientSession - delta >= firstNewDaemonID {
                // Not opened yet as far as bindery-dev knows: perhaps an open still on its way.
                session = clientSession
                object["session"] = .int(clientSession - delta)
            } else {
                return .answered(OutgoingMessage.response(id: id, error: RPCError(
                    ErrorCode(-32011), "Unknown session \(clientSession): never opened, or closed",
                    data: ["session": .int(clientSession)])))
            }
            params = .object(object)
        }
        if method == "initialize" { initializeParams = params ?? .object([:]) }
        let daemonID = daemon.takeID()
        pending[daemonID] = Pending(clientID: id, method: method, session: session, params: params?.objectValue, batch: batch)
        if let id { forwardedIDs[id] = daemonID }
        var message = JSONObject()
        message.append("jsonrpc", "2.0")
        message.append("id", .int(daemonID))
        message.append("method", .string(method))
        if let params { message.append("params", params) }
        return .forwarded(.object(message), daemonID)
    }

    /// A client notification as the daemon gets it, or nil when it is for no one there.
    private func forwardable(notification method: String, _ params: JSONValue?) -> JSONValue? {
        var params = params
        switch method {
        case "$/cancelRequest":
            guard let id = params?["id"].flatMap(RequestID.init(json:)), let daemonID = forwardedIDs[id] else { return nil }
            params = params?.setting("id", .int(daemonID))
        case "exit":
            exitRequested = true
            if daemon == nil {
                beforeExit?()
                exit(0)
            }
        default:
            break
        }
        var message = JSONObject()
        message.append("jsonrpc", "2.0")
        message.append("method", .string(method))
        if let params { message.append("params", params) }
        return .object(message)
    }

    // MARK: - From a daemon

    /// A message a daemon wrote.
    func daemonSent(_ daemon: Daemon, _ value: JSONValue) {
        if case .object(let object) = value, object["method"] == nil, daemon.complete(object) { return }
        if daemon !== self.daemon {
            if daemon === candidate { candidateSent?(value) }
            return
        }
        switch value {
        case .array(let elements):
            for element in elements {
                guard case .object(let object) = element, let id = object["id"]?.intValue else { continue }
                respond(id, object)
            }
        case .object(let object):
            if let method = object["method"]?.stringValue {
                if method == "didChange", let params = object["params"]?.objectValue {
                    if let message = didChange(params) { client.send(message) }
                } else {
                    client.send(value)
                }
            } else if let id = object["id"]?.intValue {
                respond(id, object)
            }
        default:
            break
        }
        client.flush()
    }

    /// The daemon answered the forwarded request `daemonID`.
    private func respond(_ daemonID: Int, _ response: JSONObject) {
        guard let request = pending[daemonID] else { return }
        finish(daemonID, with: clientResponse(to: request, response))
    }

    /// Sends the client's answer to the forwarded request `daemonID` (alone, or in its batch).
    private func finish(_ daemonID: Int, with response: JSONValue) {
        guard let request = pending.removeValue(forKey: daemonID) else { return }
        if let id = request.clientID, forwardedIDs[id] == daemonID { forwardedIDs[id] = nil }
        if let token = request.batch, var reply = batches[token] {
            reply.fill(daemonID, response)
            if reply.isComplete {
                batches[token] = nil
                client.send(reply.json)
            } else {
                batches[token] = reply
            }
        } else {
            client.send(response)
        }
        if pending.isEmpty, let onSettled {
            self.onSettled = nil
            onSettled()
        }
    }

    /// The daemon's response in the client's terms, the fold updated with what it says.
    private func clientResponse(to request: Pending, _ response: JSONObject) -> JSONValue {
        if request.cancelledByReload, response["error"]?["code"] == .int(-32800) {
            return OutgoingMessage.response(id: request.clientID, error: Self.reloadCancellation)
        }
        var message = JSONObject()
        message.append("jsonrpc", "2.0")
        message.append("id", request.clientID?.json ?? .null)
        if var error = response["error"] {
            if case .object(var data)? = error["data"] {
                if let session = data["session"]?.intValue, let id = clientSessionID(session) { data["session"] = .int(id) }
                if let revision = data["revision"]?.intValue, let id = request.session, let record = sessions[id] {
                    data["revision"] = .int(revision + record.offset)
                }
                error = error.setting("data", .object(data))
            }
            message.append("error", error)
            return .object(message)
        }
        var result = response["result"] ?? .null
        if request.method == "session/open" {
            result = opened(result, request.params)
        } else if let id = request.session, var record = sessions[id] {
            if request.method == "session/close" {
                sessions[id] = nil
                byDaemonID[record.daemonID] = nil
            } else {
                if let revision = result["revision"]?.intValue {
                    result = result.setting("revision", .int(revision + record.offset))
                }
                foldResult(result, of: request, into: &record)
                sessions[id] = record
            }
        }
        message.append("result", result)
        return .object(message)
    }

    /// What a result tells about the client's state of a session.
    private func foldResult(_ result: JSONValue, of request: Pending, into record: inout SessionRecord) {
        switch request.method {
        case "session/state", "session/observe":
            if let state = result["state"]?.objectValue { record.state = state }
            if let revision = result["revision"]?.intValue { record.revision = revision }
            if request.method == "session/observe", let names = request.params?["properties"]?.arrayValue {
                record.observe = names.compactMap(\.stringValue)
                // Members no longer observed are no longer the client's.
                record.state = record.state.filtering(record.observe!)
            }
        case "setField":
            // No echo: the client holds what it wrote unless a didChange said the model stored another value.
            if !request.echoed, let field = request.params?["field"]?.stringValue, let value = request.params?["value"],
               record.observe?.contains(field) ?? true, record.state[field] != nil {
                record.state[field] = value
            }
        default:
            break
        }
    }

    /// A `session/open` result in the client's terms: a new client session id, or the one already
    /// known when a key returned a session already open.
    private func opened(_ result: JSONValue, _ params: JSONObject?) -> JSONValue {
        guard let daemonID = result["session"]?.intValue, let params, let type = params["type"]?.stringValue else { return result }
        let state = result["state"]?.objectValue ?? JSONObject()
        let revision = result["revision"]?.intValue ?? 0
        if let id = byDaemonID[daemonID], var record = sessions[id] {
            record.state = state
            record.revision = revision + record.offset
            sessions[id] = record
            return result.setting("session", .int(id)).setting("revision", .int(record.revision))
        }
        guard let id = clientSessionID(daemonID) else { return result }
        nextSessionID = max(nextSessionID, id + 1)
        let observe = params["observe"]?.arrayValue?.compactMap(\.stringValue)
        sessions[id] = SessionRecord(id: id, type: type, key: params["key"]?.stringValue, args: params["args"],
                                     observe: observe, state: state, revision: revision, daemonID: daemonID, offset: 0)
        byDaemonID[daemonID] = id
        return result.setting("session", .int(id))
    }

    /// A daemon's `didChange` in the client's terms, folded; nil for a session the client does not know.
    private func didChange(_ params: JSONObject) -> JSONValue? {
        guard let daemonSession = params["session"]?.intValue, let id = byDaemonID[daemonSession],
              var record = sessions[id] else { return nil }
        var params = params
        let revision = (params["revision"]?.intValue ?? 0) + record.offset
        params["session"] = .int(id)
        params["revision"] = .int(revision)
        if let cause = params["cause"]?.intValue {
            if var request = pending[cause] {
                params["cause"] = request.clientID?.json ?? .null
                if request.method == "setField", let field = request.params?["field"]?.stringValue,
                   params["changes"]?[field] != nil {
                    request.echoed = true
                    pending[cause] = request
                }
            } else {
                params["cause"] = nil
            }
        }
        record.apply(changes: params["changes"]?.objectValue, splices: params["splices"]?.objectValue, revision: revision)
        sessions[id] = record
        return notification("didChange", params)
    }

    /// Sends a notification of bindery-dev's own to the client.
    func notify(_ method: String, _ params: JSONObject) {
        client.send(notification(method, params))
        client.flush()
    }
}

extension JSONObject {
    /// The members named in `names`, in this object's order.
    func filtering(_ names: [String]) -> JSONObject {
        let keep = Set(names)
        return JSONObject(members.filter { keep.contains($0.key) })
    }
}
