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
            // The header made on the stack and appended whole: appending its pieces and each digit
            // checked the buffer's uniqueness and capacity every time (about 250 instructions a message).
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { header in
                let count = Framing.writeHeader(length: body.count, into: header)
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: header[..<count]))
            }
            buffer.append(contentsOf: body)
        case .newlineDelimited:
            buffer.append(contentsOf: body)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    /// Writes `Content-Length: N\r\n\r\n` at the start of `header` (48 bytes at least); returns its length.
    private static func writeHeader(length: Int, into header: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let prefix: StaticString = "Content-Length: "
        var count = prefix.utf8CodeUnitCount
        UnsafeMutableRawBufferPointer(header).copyMemory(from: UnsafeRawBufferPointer(start: prefix.utf8Start, count: count))
        var digits = 1, rest = length
        while rest >= 10 { digits += 1; rest /= 10 }
        rest = length
        for position in stride(from: count + digits - 1, through: count, by: -1) {
            header[position] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        count += digits
        header[count] = UInt8(ascii: "\r")
        header[count + 1] = UInt8(ascii: "\n")
        header[count + 2] = UInt8(ascii: "\r")
        header[count + 3] = UInt8(ascii: "\n")
        return count + 4
    }
}
