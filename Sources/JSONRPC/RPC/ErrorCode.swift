/// A JSON-RPC error code: the ones the JSON-RPC 2.0 and LSP specifications define live here;
/// an application adds its own as static members in an extension.
public struct ErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// The body of a message is not JSON.
    public static let parseError = ErrorCode(-32700)
    /// The JSON is not a valid JSON-RPC message (or the server has shut down).
    public static let invalidRequest = ErrorCode(-32600)
    public static let methodNotFound = ErrorCode(-32601)
    public static let invalidParams = ErrorCode(-32602)
    /// A bug in the server: it could not answer a well-formed request.
    public static let internalError = ErrorCode(-32603)
    /// LSP: the request was cancelled by `$/cancelRequest`.
    public static let requestCancelled = ErrorCode(-32800)

    public var description: String { String(rawValue) }
}
