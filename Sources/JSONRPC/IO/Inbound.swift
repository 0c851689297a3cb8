/// What the reader hands to the server, in the order the client sent it.
public enum Inbound: Sendable {
    /// A body that parsed as JSON: one message, or a batch (an array).
    case message(JSONValue, body: [UInt8])
    /// A body or frame that could not be read; answer `error` with a null id.
    case malformed(RPCError, body: [UInt8])
    /// The client closed its end of the stream.
    case end
}
