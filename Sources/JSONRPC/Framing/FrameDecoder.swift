/// Cuts a byte stream into message bodies, in either framing, detected from the first byte.
///
/// Feed it whatever `read` returned, in any split: ``append(_:)`` then ``next()`` until it answers
/// `nil`. Malformed framing is reported as a ``FrameEvent/error(_:)`` and the decoder resynchronises
/// (at the next header block or line), so one bad frame never wedges the stream.
///
/// Not thread-safe: one reader owns it.
public struct FrameDecoder: Sendable {
    /// The framing in use: `nil` until the first byte that is not white space arrives.
    public private(set) var framing: Framing?
    /// The largest body accepted; a larger one is skipped and reported.
    public var maximumMessageSize: Int

    private var buffer: [UInt8] = []
    private var start = 0
    /// Bytes of an oversized body still to be thrown away.
    private var skipping = 0
    /// True while the rest of an over-long NDJSON line is being thrown away, up to its newline.
    private var discardingLine = false
    /// Where the search for the next newline resumes: bytes before it were already searched, so a
    /// long line arriving in many reads is scanned once, not once per read.
    private var scannedUpTo = 0

    static let maximumHeaderSize = 8192

    public init(maximumMessageSize: Int = 64 << 20) {
        self.maximumMessageSize = maximumMessageSize
    }

    /// Bytes received and not yet returned as a frame.
    public var pendingByteCount: Int { buffer.count - start + skipping }

    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            scannedUpTo = max(0, scannedUpTo - start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// The next complete frame, an error about a malformed one, or `nil` when more bytes are needed.
    public mutating func next() -> FrameEvent? {
        switch nextSpan() {
        case .body(let range)?: .frame(Array(buffer[range]))
        case .error(let message)?: .error(message)
        case nil: nil
        }
    }

    /// Like ``next()``, but a frame's body is handed to `read` where it lies in the buffer, not
    /// copied (valid only during the call); a malformed frame is handed to `malformed`.
    public mutating func next<T>(reading read: (UnsafeBufferPointer<UInt8>) -> T, malformed: (String) -> T) -> T? {
        switch nextSpan() {
        case .body(let range)?:
            buffer.withUnsafeBufferPointer { read(UnsafeBufferPointer(rebasing: $0[range])) }
        case .error(let message)?: malformed(message)
        case nil: nil
        }
    }

    /// Where the next frame's body lies in ``buffer``, or an error about a malformed one.
    private enum Span {
        case body(Range<Int>)
        case error(String)
    }

    private mutating func nextSpan() -> Span? {
        if skipping > 0 {
            let dropped = min(skipping, buffer.count - start)
            start += dropped
            skipping -= dropped
            if skipping > 0 { return nil }
        }
        if framing == nil {
            while start < buffer.count, isWhitespace(buffer[start]) { start += 1 }
            guard start < buffer.count else { return nil }
            framing = Framing.detect(firstByte: buffer[start])
        }
        switch framing! {
        case .contentLength: return nextContentLengthFrame()
        case .newlineDelimited: return nextLine()
        }
    }

    /// What is left when the stream ends: an error if a frame was cut off, else `nil`.
    public mutating func finish() -> FrameEvent? {
        var rest = start
        while rest < buffer.count, isWhitespace(buffer[rest]) { rest += 1 }
        defer { start = buffer.count }
        guard rest < buffer.count else { return nil }
        if framing == .newlineDelimited {
            if discardingLine { return nil }
            // A last line without its newline is still a whole JSON text; accept it.
            return .frame(Array(buffer[rest...]))
        }
        start = rest
        guard let headerEnd = findHeaderEnd(), case .success(let length) = parseHeader(buffer[rest..<headerEnd.headerStop])
        else { return .error("the stream ended inside a header block") }
        return .error("the stream ended inside a frame: \(buffer.count - headerEnd.bodyStart) of \(length) body bytes arrived")
    }

    private mutating func nextLine() -> Span? {
        while true {
            guard let newline = buffer[max(start, scannedUpTo)...].firstIndex(of: UInt8(ascii: "\n")) else {
                scannedUpTo = buffer.count
                if discardingLine {
                    start = buffer.count
                } else if buffer.count - start > maximumMessageSize {
                    let size = buffer.count - start
                    start = buffer.count
                    discardingLine = true
                    return .error("a line longer than the maximum message size (\(maximumMessageSize) bytes), \(size) bytes so far")
                }
                return nil
            }
            if discardingLine {
                // The tail of the line already reported: not a message of its own.
                discardingLine = false
                start = newline + 1
                continue
            }
            var end = newline
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let lineStart = start
            start = newline + 1
            if buffer[lineStart..<end].allSatisfy(isWhitespace) { continue }
            if end - lineStart > maximumMessageSize {
                return .error("a message of \(end - lineStart) bytes exceeds the maximum message size (\(maximumMessageSize) bytes)")
            }
            return .body(lineStart..<end)
        }
    }

    private mutating func nextContentLengthFrame() -> Span? {
        // Skip blank lines between frames: some clients end a body with a newline.
        while start < buffer.count, isWhitespace(buffer[start]) { start += 1 }
        if let (bodyStart, length) = commonHeader(), length <= maximumMessageSize {
            guard buffer.count - bodyStart >= length else { return nil }
            start = bodyStart + length
            return .body(bodyStart..<start)
        }
        // Each line must look like a header before the block is waited for: a JSON text (a client
        // switching framing mid-stream) or garbage between frames is reported and skipped a line
        // at a time, instead of being taken for part of the next header block.
        if let problem = nextLineIsNotAHeader() { return .error(problem) }
        guard let headerEnd = findHeaderEnd() else {
            if buffer.count - start > Self.maximumHeaderSize {
                start = buffer.count
                return .error("a header block longer than 8192 bytes without a blank line")
            }
            return nil
        }
        // The same limit whether the block arrived in one read or in several.
        if headerEnd.headerStop - start > Self.maximumHeaderSize {
            start = headerEnd.bodyStart
            return .error("a header block longer than 8192 bytes without a blank line")
        }
        let header = parseHeader(buffer[start..<headerEnd.headerStop])
        let bodyStart = headerEnd.bodyStart
        switch header {
        case .failure(let error):
            start = bodyStart
            return .error(error.message)
        case .success(let length):
            if length > maximumMessageSize {
                start = bodyStart
                skipping = length
                return .error("Content-Length \(length) exceeds the maximum message size (\(maximumMessageSize) bytes)")
            }
            guard buffer.count - bodyStart >= length else { return nil }
            start = bodyStart + length
            return .body(bodyStart..<start)
        }
    }

    /// The header block nearly every client writes, `Content-Length: N\r\n\r\n` exactly, read in one
    /// pass over raw bytes: where the body starts and N. Anything else (other headers, other case or
    /// spacing, a block not all here yet) is nil, and left to the general path, which agrees on this
    /// form and also reports what is wrong with the others.
    private func commonHeader() -> (bodyStart: Int, length: Int)? {
        buffer.withUnsafeBufferPointer { bytes -> (Int, Int)? in
            let prefix = Self.commonPrefix
            guard bytes.count - start > prefix.count + 4 else { return nil }
            for offset in 0..<prefix.count where bytes[start + offset] != prefix[offset] { return nil }
            var index = start + prefix.count, length = 0, digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, digits < 18 {
                length = length * 10 + Int(bytes[index] - 0x30)
                index += 1
                digits += 1
            }
            guard digits > 0, index + 4 <= bytes.count, bytes[index] == 0x0D, bytes[index + 1] == 0x0A,
                  bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A else { return nil }
            return (index + 4, length)
        }
    }

    private static let commonPrefix = Array("Content-Length: ".utf8)

    /// Checks the first unread line, once it is complete, for the shape `Name: value` with a
    /// token name; if it is not a header, skips it and describes it.
    private mutating func nextLineIsNotAHeader() -> String? {
        guard start < buffer.count, let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = buffer[start..<newline]
        if let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
           line[..<colon].allSatisfy(isTokenCharacter) {
            return nil
        }
        start = newline + 1
        if line.first == UInt8(ascii: "{") || line.first == UInt8(ascii: "[") {
            return "expected a Content-Length header, found a JSON text: the framing cannot change mid-stream"
        }
        return "expected a header line, found \(printable(line))"
    }

    /// Where the header block ends: at `\r\n\r\n`, or leniently at `\n\n`.
    private func findHeaderEnd() -> (headerStop: Int, bodyStart: Int)? {
        var index = start
        while index < buffer.count {
            if buffer[index] == UInt8(ascii: "\n") {
                if index + 1 < buffer.count, buffer[index + 1] == UInt8(ascii: "\n") {
                    return (index, index + 2)
                }
                if index + 2 < buffer.count, buffer[index + 1] == UInt8(ascii: "\r"), buffer[index + 2] == UInt8(ascii: "\n") {
                    return (index, index + 3)
                }
            }
            index += 1
        }
        return nil
    }

    /// The body length announced by a header block; other headers are ignored. Byte-level: this
    /// runs once per message, and building Strings here cost more than parsing the JSON body.
    private func parseHeader(_ bytes: ArraySlice<UInt8>) -> Result<Int, HeaderError> {
        var length: Int?
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            // Lines by hand: `split` allocated an array of slices for every message.
            let lineEnd = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let line = bytes[lineStart..<lineEnd]
            lineStart = lineEnd + 1
            guard !line.isEmpty else { continue }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
                return .failure(HeaderError("a header line without a colon: \(printable(line))"))
            }
            guard isContentLength(trimmed(line[..<colon])) else { continue }
            let valueBytes = trimmed(line[(colon + 1)...])
            guard let value = parseLength(valueBytes) else {
                let text = String(decoding: valueBytes.prefix(40), as: UTF8.self)
                return .failure(HeaderError("Content-Length is not a non-negative integer: \"\(text)\""))
            }
            if let length, length != value {
                return .failure(HeaderError("two different Content-Length headers: \(length) and \(value)"))
            }
            length = value
        }
        guard let length else { return .failure(HeaderError("a header block without Content-Length")) }
        return .success(length)
    }
}

/// What ``FrameDecoder/next()`` produces.
public enum FrameEvent: Sendable, Equatable {
    /// The body of one message.
    case frame([UInt8])
    /// Malformed framing, described for a person; the decoder has already moved past it.
    case error(String)
}

private struct HeaderError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Letters, digits and the punctuation RFC 7230 allows in a header name.
private func isTokenCharacter(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
        || "!#$%&'*+-.^_`|~".utf8.contains(byte)
}

private func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
}

private func printable(_ bytes: ArraySlice<UInt8>) -> String {
    let text = String(decoding: bytes.prefix(40), as: UTF8.self)
    return "\"" + text.filter { !$0.isNewline } + (bytes.count > 40 ? "…" : "") + "\""
}

private let contentLengthName = Array("content-length".utf8)

/// Whether a header name is Content-Length, in any case.
private func isContentLength(_ name: ArraySlice<UInt8>) -> Bool {
    guard name.count == contentLengthName.count else { return false }
    return zip(name, contentLengthName).allSatisfy { byte, expected in
        byte == expected || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") && byte + 32 == expected)
    }
}

/// Digits only, at most 18 of them (no overflow); nil for anything else.
private func parseLength(_ digits: ArraySlice<UInt8>) -> Int? {
    guard !digits.isEmpty, digits.count <= 18 else { return nil }
    var value = 0
    for byte in digits {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
    }
    return value
}

/// The bytes without leading and trailing spaces, tabs and carriage returns.
private func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
    var slice = bytes
    while let first = slice.first, first == 0x20 || first == 0x09 || first == 0x0D { slice.removeFirst() }
    while let last = slice.last, last == 0x20 || last == 0x09 || last == 0x0D { slice.removeLast() }
    return slice
}
