/// A JSON-RPC error object: what a request answers when it fails.
///
/// ```swift
/// throw RPCError(.invalidParams, "missing param \"session\"", data: ["param": "session"])
/// ```
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var data: JSONValue?

    public init(_ code: ErrorCode, _ message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var json: JSONValue {
        var object = JSONObject(minimumCapacity: 3)
        object.append("code", .int(code.rawValue))
        object.append("message", .string(message))
        if let data { object.append("data", data) }
        return .object(object)
    }

    public var description: String { "\(code.rawValue): \(message)" }
}

extension RPCError {
    public static func parseError(_ detail: String) -> RPCError {
        RPCError(.parseError, "Parse error: \(detail)")
    }

    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(.invalidRequest, "Invalid request: \(detail)")
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(.methodNotFound, "Method not found: \(method)", data: ["method": .string(method)])
    }

    public static func invalidParams(_ detail: String, param: String? = nil) -> RPCError {
        RPCError(.invalidParams, "Invalid params: \(detail)", data: param.map { ["param": .string($0)] })
    }
}
