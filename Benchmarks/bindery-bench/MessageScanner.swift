import JSONRPC
#if canImport(Glibc)
import Glibc
#endif

/// What the client needs to know of one message from the daemon.
enum Inbound: Equatable {
    /// A `didChange`: its session, revision and cause (nil when no request caused it).
    case didChange(session: Int, revision: Int, cause: Int?)
    /// A response with an integer id; `revision` only when the result is exactly `{"revision":N}`
    /// (what `setField` returns).
    case response(id: Int, isError: Bool, revision: Int?)
    /// Anything else (string ids, other notifications, batches).
    case other
}

/// Classifies frames without parsing their JSON: the daemon writes `didChange` as
/// `{"jsonrpc":"2.0","method":"didChange","params":{"session":S,"revision":R,"changes":{...},"cause":C}}`
/// and responses as `{"jsonrpc":"2.0","id":N,"result":...}` / `...,"error":...}`, so fixed prefixes
/// and the digits after them (and, for `cause`, the last member before `}}`) are enough. A frame of
/// any other shape goes through the real parser (``parseFully(_:)``), so the scanner is never wrong,
/// only slower; ``crossCheck(_:_:)`` compares the two on a sample of frames.
enum MessageScanner {
    private static func bytes(_ text: String) -> UnsafeBufferPointer<UInt8> {
        let pointer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: text.utf8.count)
        _ = pointer.initialize(from: text.utf8)
        return UnsafeBufferPointer(pointer)
    }

    private nonisolated(unsafe) static let envelope = bytes(#"{"jsonrpc":"2.0","#)
    private nonisolated(unsafe) static let didChangeHead = bytes(#""method":"didChange","params":{"session":"#)
    private nonisolated(unsafe) static let idHead = bytes(#""id":"#)
    private nonisolated(unsafe) static let revisionKey = bytes(#","revision":"#)
    private nonisolated(unsafe) static let causeKey = bytes(#","cause":"#)
    private nonisolated(unsafe) static let resultKey = bytes(#","result":"#)
    private nonisolated(unsafe) static let errorKey = bytes(#","error":"#)
    private nonisolated(unsafe) static let revisionObject = bytes(#"{"revision":"#)

    @inline(__always)
    private static func matches(_ frame: Frame, at offset: Int, _ literal: UnsafeBufferPointer<UInt8>) -> Bool {
        offset + literal.count <= frame.count && memcmp(frame.base + offset, literal.baseAddress!, literal.count) == 0
    }

    /// A non-negative decimal at `offset`, moving `offset` past it.
    @inline(__always)
    private static func integer(_ frame: Frame, _ offset: inout Int) -> Int? {
        let first = offset
        var value = 0
        while offset < frame.count, frame[offset] &- 0x30 < 10 {
            value = value &* 10 &+ Int(frame[offset] &- 0x30)
            offset += 1
        }
        return offset > first && offset - first < 19 ? value : nil
    }

    @inline(__always)
    static func classify(_ frame: Frame) -> Inbound {
        guard matches(frame, at: 0, envelope) else { return parseFully(frame) }
        var offset = envelope.count
        if matches(frame, at: offset, didChangeHead) {
            offset += didChangeHead.count
            guard let session = integer(frame, &offset), matches(frame, at: offset, revisionKey) else {
                return parseFully(frame)
            }
            offset += revisionKey.count
            guard let revision = integer(frame, &offset) else { return parseFully(frame) }
            // `cause` is the last member of params: the frame ends with `,"cause":N}}`; without a
            // cause it ends with the `}` of `changes` and then `}}`.
            let count = frame.count
            guard count >= 3, frame[count - 1] == 0x7D, frame[count - 2] == 0x7D else { return parseFully(frame) }
            var digitsStart = count - 2
            while digitsStart > offset, frame[digitsStart - 1] &- 0x30 < 10 { digitsStart -= 1 }
            if digitsStart < count - 2, matches(frame, at: digitsStart - causeKey.count, causeKey) {
                var cursor = digitsStart
                guard let cause = integer(frame, &cursor) else { return parseFully(frame) }
                return .didChange(session: session, revision: revision, cause: cause)
            }
            if frame[count - 3] == 0x7D { return .didChange(session: session, revision: revision, cause: nil) }
            return parseFully(frame)
        }
        if matches(frame, at: offset, idHead) {
            offset += idHead.count
            guard let id = integer(frame, &offset) else { return parseFully(frame) }
            if matches(frame, at: offset, resultKey) {
                offset += resultKey.count
                var revision: Int?
                if matches(frame, at: offset, revisionObject) {
                    var cursor = offset + revisionObject.count
                    if let value = integer(frame, &cursor), cursor + 2 == frame.count,
                       frame[cursor] == 0x7D, frame[cursor + 1] == 0x7D {
                        revision = value
                    }
                }
                return .response(id: id, isError: false, revision: revision)
            }
            if matches(frame, at: offset, errorKey) { return .response(id: id, isError: true, revision: nil) }
        }
        return parseFully(frame)
    }

    /// The same classification with the JSONRPC module's parser.
    static func parseFully(_ frame: Frame) -> Inbound {
        guard let value = try? JSONParser.parse(frame.buffer), case .object(let message) = value else { return .other }
        if case .string("didChange") = message["method"], let params = message["params"],
           case .int(let session) = params["session"], case .int(let revision) = params["revision"] {
            var cause: Int?
            if case .int(let value) = params["cause"] { cause = value }
            return .didChange(session: session, revision: revision, cause: cause)
        }
        if case .int(let id) = message["id"] {
            if message["error"] != nil { return .response(id: id, isError: true, revision: nil) }
            if case .object(let result) = message["result"], result.count == 1, case .int(let revision) = result["revision"] {
                return .response(id: id, isError: false, revision: revision)
            }
            if message["result"] != nil { return .response(id: id, isError: false, revision: nil) }
        }
        return .other
    }

    /// Throws when the scanner and the parser disagree about `frame`.
    static func crossCheck(_ frame: Frame, _ scanned: Inbound) throws(BenchError) {
        let parsed = parseFully(frame)
        if parsed != scanned {
            throw BenchError("frame scanner bug: scanned \(scanned), parsed \(parsed), frame \(frame.text)")
        }
    }

    /// The integer after the first `"key":` in the frame (cold paths: session ids of open results).
    static func integer(after key: String, in frame: Frame) -> Int? {
        let needle = Array("\"\(key)\":".utf8)
        guard let found = frame.firstOffset(of: needle) else { return nil }
        var offset = found + needle.count
        return integer(frame, &offset)
    }
}
