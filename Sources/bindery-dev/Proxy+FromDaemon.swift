import JSONRPC

/// What the daemon sends, on its way to the client: responses and `didChange`s put back in the
/// client's terms (its ids, session ids and revisions), and every session's fold kept current
/// from them. Main actor, like all of ``Proxy``.
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
        finish(daemonID, with: clientResponse(to: request, response))
    }

    /// Sends the client's answer to the forwarded request `daemonID` (alone, or in its batch).
    func finish(_ daemonID: Int, with response: JSONValue) {
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
                forget(id)
            } else {
                if let revision = result["revision"]?.intValue {
                    result = result.setting("revision", .int(revision + record.offset))
                }
                if let state = result["state"]?.objectValue {
                    result = result.setting("state", .object(clientState(state, type: record.type)))
                }
                foldResult(result, of: request, into: &record)
                sessions[id] = record
                if let children = adopt(result["children"], under: id) { result = result.setting("children", .object(children)) }
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
        let state = clientState(result["state"]?.objectValue ?? JSONObject(), type: type)
        let revision = result["revision"]?.intValue ?? 0
        var result = result.setting("state", .object(state))
        let id: Int
        if let known = byDaemonID[daemonID], var record = sessions[known] {
            id = known
            record.state = state
            record.revision = revision + record.offset
            sessions[id] = record
            result = result.setting("revision", .int(record.revision))
        } else {
            guard let new = clientSessionID(daemonID) else { return result }
            id = new
            nextSessionID = max(nextSessionID, id + 1)
            let observe = params["observe"]?.arrayValue?.compactMap(\.stringValue)
            sessions[id] = SessionRecord(id: id, type: type, key: params["key"]?.stringValue, args: params["args"],
                                         observe: observe, state: state, revision: revision, daemonID: daemonID, offset: 0)
            byDaemonID[daemonID] = id
        }
        if let children = adopt(result["children"], under: id) { result = result.setting("children", .object(children)) }
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
        let schema = schema(of: record.type)
        if let changes = params["changes"]?.objectValue {
            params["changes"] = .object(ChildReferences.mapping(state: changes, schema: schema, clientSessionID))
        }
        if let splices = params["splices"]?.objectValue {
            params["splices"] = .object(ChildReferences.mapping(splices: splices, schema: schema, clientSessionID))
        }
        record.apply(changes: params["changes"]?.objectValue, splices: params["splices"]?.objectValue, revision: revision)
        sessions[id] = record
        if let children = adopt(params["children"], under: id) { params["children"] = .object(children) }
        if let detached = detach(params["detached"]) { params["detached"] = .array(detached) }
        return notification("didChange", params)
    }
}
