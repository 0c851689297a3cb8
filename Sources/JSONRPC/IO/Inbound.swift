/// What the reader hands to the server, in the order the client sent it.
public enum Inbound: Sendable {
    /// A body that parsed as JSON: one message, or a batch (an array).
    case message(JSONValue, body: [UInt8])
    /// A request read without a tree (see ``FlatRequest``): the hot path. Its body is empty unless
    /// the connection was asked to keep bodies (a recording does).
    case request(FlatRequest, body: [UInt8])
    /// A body or frame that could not be read; answer `error` with a null id.
    case malformed(RPCError, body: [UInt8])
    /// The client closed its end of the stream.
    case end
}

extension Inbound {
    /// What a framed event becomes: a parsed message, or a frame or body that could not be read.
    public init(_ event: FrameEvent, maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        switch event {
        case .error(let message):
            self = .malformed(.parseError(message), body: [])
        case .frame(let body):
            if let request = FlatRequest(body) {
                self = .request(request, body: body)
                return
            }
            do {
                self = .message(try JSONParser.parse(body, maximumDepth: maximumDepth), body: body)
            } catch {
                self = .malformed(.parseError(error.description), body: body)
            }
        }
    }
}

extension FrameDecoder {
    /// The next frame as what the reader hands over, or nil when more bytes are needed. A flat
    /// request is read where it lies in the decoder's buffer, and its body copied only when
    /// `keepingBody`; anything else is copied out and parsed.
    public mutating func nextInbound(maximumDepth: Int, keepingBody: Bool) -> Inbound? {
        next(reading: { bytes in
            if let request = FlatRequest(bytes) { return .request(request, body: keepingBody ? Array(bytes) : []) }
            return Inbound(.frame(Array(bytes)), maximumDepth: maximumDepth)
        }, malformed: { Inbound(.error($0), maximumDepth: maximumDepth) })
    }
}
