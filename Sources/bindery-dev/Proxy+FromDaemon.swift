import BinderyMirror
import JSONRPC

/// What the daemon sends, on its way to the client: responses and `didChange`s put back in the
/// client's terms (its ids, session ids and revisions), and folded into ``Proxy/mirror``.
/// Main actor, like all of ``Proxy``.
extension Proxy {
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
        finish(daemonID, with: clientResponse(to: request, daemonID: daemonID, response))
    }

    /// Sends the client's answer to the forwarded request `daemonID` (alone, or in its batch).
    func finish(_ daemonID: Int, with response: JSONValue) {
        guard let request = pending.removeValue(forKey: daemonID) else { return }
        if let id = request.clientID, forwardedIDs[id] == daemonID { forwardedIDs[id] = nil }
        // A write answered with an error (here by bindery-dev, or by the daemon) changed nothing.
        mirror.answered(.int(daemonID), failed: true, revision: nil)
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

    /// The daemon's response in the client's terms, the mirror updated with what it says.
    private func clientResponse(to request: Pending, daemonID: Int, _ response: JSONObject) -> JSONValue {
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
        } else if let id = request.session, let record = sessions[id] {
            if request.method == "session/close" {
                forget(id)
            } else {
                if let revision = result["revision"]?.intValue {
                    result = result.setting("revision", .int(revision + record.offset))
                }
                if let state = result["state"]?.objectValue {
                    result = result.setting("state", .object(clientState(state, type: record.type)))
                }
                let children = adopt(result["children"])
                if let children { result = result.setting("children", .object(children)) }
                fold(result, of: request, daemonID: daemonID, session: id)
                if let children { mirror.take(children: children) }
                linkChildren(of: id, children)
            }
        }
        message.append("result", result)
        return .object(message)
    }

    /// What a result (in the client's terms) tells the client of a session.
    private func fold(_ result: JSONValue, of request: Pending, daemonID: Int, session id: Int) {
        switch request.method {
        case "session/state", "session/observe":
            guard let type = sessions[id]?.type else { return }
            var told = Mirror.Session(result.setting("type", .string(type)))
            if request.method == "session/observe", let names = request.params?["properties"]?.arrayValue {
                let observe = names.compactMap(\.stringValue)
                sessions[id]?.observe = observe
                // Members no longer observed are no longer the client's.
                told.state = told.state.filtering(observe)
            }
            mirror.take(id, told)
        case "setField":
            mirror.answered(.int(daemonID), failed: false, revision: result["revision"]?.intValue)
        default:
            break
        }
    }

    /// A `session/open` result in the client's terms: a new client session id, or the one already
    /// known when a key returned a session already open.
    private func opened(_ result: JSONValue, _ params: JSONObject?) -> JSONValue {
        guard let daemonID = result["session"]?.intValue, let params, let type = params["type"]?.stringValue else { return result }
        let state = clientState(result["state"]?.objectValue ?? JSONObject(), type: type)
        var result = result.setting("state", .object(state))
        let id: Int
        if let known = byDaemonID[daemonID], let record = sessions[known] {
            id = known
            result = result.setting("revision", .int((result["revision"]?.intValue ?? 0) + record.offset))
        } else {
            guard let new = clientSessionID(daemonID) else { return result }
            id = new
            nextSessionID = max(nextSessionID, id + 1)
            let observe = params["observe"]?.arrayValue?.compactMap(\.stringValue)
            sessions[id] = SessionRecord(id: id, type: type, key: params["key"]?.stringValue, args: params["args"],
                                         observe: observe, daemonID: daemonID, offset: 0)
            byDaemonID[daemonID] = id
        }
        mirror.take(id, Mirror.Session(result.setting("type", .string(type))))
        if let children = adopt(result["children"]) {
            result = result.setting("children", .object(children))
            mirror.take(children: children)
            linkChildren(of: id, children)
        }
        return result.setting("session", .int(id))
    }

    /// A daemon's `didChange` in the client's terms, folded; nil for a session the client does not know.
    private func didChange(_ params: JSONObject) -> JSONValue? {
        guard let daemonSession = params["session"]?.intValue, let id = byDaemonID[daemonSession],
              let record = sessions[id] else { return nil }
        var params = params
        params["session"] = .int(id)
        params["revision"] = .int((params["revision"]?.intValue ?? 0) + record.offset)
        let schema = schema(of: record.type)
        if let changes = params["changes"]?.objectValue {
            params["changes"] = .object(ChildReferences.mapping(state: changes, schema: schema, clientSessionID))
        }
        if let splices = params["splices"]?.objectValue {
            params["splices"] = .object(ChildReferences.mapping(splices: splices, schema: schema, clientSessionID))
        }
        let children = adopt(params["children"])
        if let children { params["children"] = .object(children) }
        if let detached = params["detached"]?.arrayValue {
            params["detached"] = .array(detached.map { $0.intValue.flatMap(clientSessionID).map(JSONValue.int) ?? $0 })
        }
        // The mirror's pending writes go by the ids they were forwarded with, as the daemon's cause does.
        mirror.didChange(params)
        linkChildren(of: id, children)
        for detached in params["detached"]?.arrayValue ?? [] {
            if let child = detached.intValue { forget(child) }
        }
        if let cause = params["cause"]?.intValue {
            params["cause"] = pending[cause].map { $0.clientID?.json ?? .null }
        }
        return notification("didChange", params)
    }
}
