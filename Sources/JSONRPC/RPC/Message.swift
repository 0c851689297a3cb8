/// One JSON-RPC 2.0 message as the server reads it from a client.
///
/// Validation follows the specification to the letter where it speaks, and is lenient where
/// clients are known to differ: `"params": null` counts as absent (Emacs' `jsonrpc.el`), and members
/// beyond the specified ones are ignored.
public enum IncomingMessage: Sendable, Equatable {
    /// A call that wants an answer. `id` is nil for the `"id": null` the specification discourages.
    case request(id: RequestID?, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    /// A response from the client: Bindery sends no requests, so these are read and dropped.
    case response(id: RequestID?)
    /// Not a valid message; answered with this error and the id when one could be read.
    case invalid(id: RequestID?, error: RPCError)

    /// Classifies one element of the top-level value (an object, or an element of a batch).
    public init(_ json: JSONValue) {
        guard case .object(let object) = json else {
            self = .invalid(id: nil, error: .invalidRequest("a message must be an object, not \(json.typeName)"))
            return
        }
        let hasID = object["id"] != nil
        var id: RequestID?
        if let idValue = object["id"], idValue != .null {
            guard let valid = RequestID(json: idValue) else {
                let error = RPCError.invalidRequest("\"id\" must be a string, an integer or null, not \(idValue)")
                self = .invalid(id: nil, error: error)
                return
            }
            id = valid
        }
        guard object["jsonrpc"] == .string("2.0") else {
            let found = object["jsonrpc"].map { "\($0)" } ?? "nothing"
            self = .invalid(id: id, error: .invalidRequest("\"jsonrpc\" must be \"2.0\", found \(found)"))
            return
        }
        guard let methodValue = object["method"] else {
            if hasID, object["result"] != nil || object["error"] != nil {
                self = .response(id: id)
            } else {
                self = .invalid(id: id, error: .invalidRequest("missing \"method\""))
            }
            return
        }
        guard case .string(let method) = methodValue else {
            self = .invalid(id: id, error: .invalidRequest("\"method\" must be a string, not \(methodValue.typeName)"))
            return
        }
        var params = object["params"]
        if params == .null { params = nil }
        if let params, params.objectValue == nil, params.arrayValue == nil {
            self = .invalid(id: id, error: .invalidRequest("\"params\" must be an object or an array, not \(params.typeName)"))
            return
        }
        self = hasID ? .request(id: id, method: method, params: params) : .notification(method: method, params: params)
    }
}

/// The messages the server writes: responses and notifications, with nothing else at the top level.
public enum OutgoingMessage {
    public static func response(id: RequestID?, result: JSONValue) -> JSONValue {
        var object = JSONObject(minimumCapacity: 3)
        object.append("jsonrpc", "2.0")
        object.append("id", id?.json ?? .null)
        object.append("result", result)
        return .object(object)
    }

    /// The response to `id` with `result`, serialized: the bytes of `response(id:result:)`, written
    /// without building its envelope (every request pays for one).
    public static func responseBytes(id: RequestID?, result: JSONValue) -> [UInt8] {
        JSONWriter.bytes { writeResponse(id: id, result: result, to: &$0) }
    }

    /// Writes the response to `id` with `result`, as ``responseBytes(id:result:)`` makes it.
    public static func writeResponse(id: RequestID?, result: JSONValue, to output: inout JSONWriter.Output) {
        writeResponse(id: id, to: &output) { $0.write(result) }
    }

    /// Writes the response to `id` whose result `writeResult` writes (valid JSON, a caller's duty).
    public static func writeResponse(id: RequestID?, to output: inout JSONWriter.Output,
                                     result writeResult: (inout JSONWriter.Output) -> Void) {
        output.append(#"{"jsonrpc":"2.0","id":"#)
        switch id {
        case .int(let number)?: output.write(number)
        case let id?: output.write(id.json)
        case nil: output.append("null")
        }
        output.append(#","result":"#)
        writeResult(&output)
        output.append("}")
    }

    public static func response(id: RequestID?, error: RPCError) -> JSONValue {
        var object = JSONObject(minimumCapacity: 3)
        object.append("jsonrpc", "2.0")
        object.append("id", id?.json ?? .null)
        object.append("error", error.json)
        return .object(object)
    }

    public static func notification(method: String, params: JSONValue) -> JSONValue {
        var object = JSONObject(minimumCapacity: 3)
        object.append("jsonrpc", "2.0")
        object.append("method", .string(method))
        object.append("params", params)
        return .object(object)
    }
}
