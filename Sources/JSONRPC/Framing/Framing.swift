/// How messages are delimited on a byte stream.
public enum Framing: String, Sendable {
    /// LSP style: `Content-Length: N\r\n\r\n` followed by N bytes of JSON.
    case contentLength = "content-length"
    /// One JSON text per line, ended by `\n`.
    case newlineDelimited = "ndjson"

    /// The framing a client uses, told by the first byte it sends that is not white space:
    /// a JSON text starts with `{` or `[`; anything else is taken for a header.
    public static func detect(firstByte: UInt8) -> Framing {
        firstByte == UInt8(ascii: "{") || firstByte == UInt8(ascii: "[") ? .newlineDelimited : .contentLength
    }

    /// Appends `body` to `buffer` framed this way. Only `Content-Length` is written, as the first and
    /// only header, because some clients (python-lsp-jsonrpc) insist on it being first.
    public func frame(_ body: [UInt8], into buffer: inout [UInt8]) {
        body.withUnsafeBufferPointer { frame($0, into: &buffer) }
    }

    public func frame(_ body: UnsafeBufferPointer<UInt8>, into buffer: inout [UInt8]) {
        switch self {
        case .contentLength:
            buffer.append(contentsOf: Framing.headerPrefix)
            appendDecimal(body.count, to: &buffer)
            buffer.append(contentsOf: Framing.headerEnd)
            buffer.append(contentsOf: body)
        case .newlineDelimited:
            buffer.append(contentsOf: body)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    private static let headerPrefix = Array("Content-Length: ".utf8)
    private static let headerEnd = Array("\r\n\r\n".utf8)
}

private func appendDecimal(_ value: Int, to buffer: inout [UInt8]) {
    if value >= 10 { appendDecimal(value / 10, to: &buffer) }
    buffer.append(UInt8(ascii: "0") + UInt8(value % 10))
}
