import JSONRPC

/// Small reads and edits of JSON-RPC messages, for rewriting them in passing.
extension JSONValue {
    var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }

    /// The object with member `key` set to `value` (unchanged when this is not an object).
    func setting(_ key: String, _ value: JSONValue?) -> JSONValue {
        guard case .object(var object) = self else { return self }
        object[key] = value
        return .object(object)
    }

    /// The serialized message, as bindery-dev writes it: compact, on one line.
    var bytes: [UInt8] { JSONWriter.bytes(self) }
}

/// A JSON-RPC notification from bindery-dev itself.
func notification(_ method: String, _ params: JSONObject) -> JSONValue {
    OutgoingMessage.notification(method: method, params: .object(params))
}

/// A JSON-RPC request as bindery-dev sends it to a daemon.
func request(id: Int, _ method: String, _ params: JSONValue) -> JSONValue {
    ["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]
}
