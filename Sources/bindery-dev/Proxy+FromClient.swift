import Glibc
import JSONRPC

/// What the client sends, on its way to the daemon: session ids and expected revisions put in
/// the daemon's terms, ids replaced by bindery-dev's own, batches answered in one piece (some
/// elements perhaps by bindery-dev itself). Main actor, like all of ``Proxy``.
extension Proxy {
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

    enum Forwarding {
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
        if method == "setField", let session, let field = params?["field"]?.stringValue, let value = params?["value"] {
            // A write of text (`text`, not `value`) is not noted: the value it makes is the daemon's to say.
            mirror.wrote(id: .int(daemonID), session: session, field: field, value: value)
        }
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
}
