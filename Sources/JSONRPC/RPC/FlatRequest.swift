#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request read in one pass over its frame's bytes, without building a tree: the shape of every
/// hot request (`setField`, `invoke`), `{"jsonrpc":"2.0","id":N,"method":"M","params":{...}}` with
/// an integer id and params whose members are all scalars (ASCII strings without escapes,
/// integers, `true`, `false`, `null`), members in any order, JSON whitespace anywhere.
///
/// Anything else — another member, a duplicate, an escape, a fraction, a nested value, a byte the
/// scan does not expect — is not a flat request, and the general parser reads the frame: so a frame
/// means the same message whichever path reads it.
public struct FlatRequest: Sendable {
    public let id: Int
    public let method: String
    public let params: FlatParams
    /// The size of the frame's body, in bytes.
    public let bodySize: Int

    /// Reads `body` as a flat request, or returns nil when it is anything else.
    public init?(_ body: [UInt8]) {
        guard let request = body.withUnsafeBufferPointer({ FlatRequest($0) }) else { return nil }
        self = request
    }

    /// Reads a frame's body where it lies.
    public init?(_ bytes: UnsafeBufferPointer<UInt8>) {
        var scanner = FlatScanner(bytes: bytes)
        guard let read = scanner.request() else { return nil }
        (id, method, params) = read
        bodySize = bytes.count
    }
}

private struct FlatScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func request() -> (Int, String, FlatParams)? {
        var id: Int?, method: String?, params: FlatParams?, sawVersion = false
        guard take(UInt8(ascii: "{")) else { return nil }
        repeat {
            guard let key = stringRange(), take(UInt8(ascii: ":")) else { return nil }
            if matches(key, "jsonrpc") {
                guard !sawVersion, let value = stringRange(), matches(value, "2.0") else { return nil }
                sawVersion = true
            } else if matches(key, "id") {
                guard id == nil, let value = integer() else { return nil }
                id = value
            } else if matches(key, "method") {
                guard method == nil, let value = name() else { return nil }
                method = value
            } else if matches(key, "params") {
                guard params == nil, let value = flatObject() else { return nil }
                params = value
            } else {
                return nil
            }
        } while take(UInt8(ascii: ","))
        guard take(UInt8(ascii: "}")), sawVersion, let id, let method, let params else { return nil }
        skipWhitespace()
        guard index == bytes.count else { return nil }
        return (id, method, params)
    }

    /// At most ``FlatParams/capacity`` members: more, and the general parser reads the frame.
    private mutating func flatObject() -> FlatParams? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var object = FlatParams()
        if take(UInt8(ascii: "}")) { return object }
        repeat {
            guard let key = name(), take(UInt8(ascii: ":")), let value = scalar() else { return nil }
            guard object[key] == nil else { return nil }  // a duplicate: the general parser decides
            guard object.append(key, value) else { return nil }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}")) ? object : nil
    }

    private mutating func scalar() -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""): return asciiString().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return literal("null") ? .null : nil
        default: return integer().map(JSONValue.int)
        }
    }

    /// `-?(0|[1-9][0-9]*)`, at most 18 digits, not followed by a fraction or exponent; not `-0`.
    private mutating func integer() -> Int? {
        skipWhitespace()
        var position = index
        let negative = position < bytes.count && bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        let start = position
        var value = 0
        while position < bytes.count, bytes[position] &- UInt8(ascii: "0") < 10 {
            guard position - start < 18 else { return nil }  // longer: the general parser decides
            value = value * 10 + Int(bytes[position] &- UInt8(ascii: "0"))
            position += 1
        }
        let digits = position - start
        guard digits > 0, digits <= 18, digits == 1 || bytes[start] != UInt8(ascii: "0"),
              !(negative && value == 0) else { return nil }
        if position < bytes.count {
            let next = bytes[position]
            if next == UInt8(ascii: ".") || next == UInt8(ascii: "e") || next == UInt8(ascii: "E") { return nil }
        }
        index = position
        return negative ? -value : value
    }

    /// A method or member name. Those of hot requests are returned as literals, which costs no
    /// decoding (a `String` made from bytes is validated and copied: about 200 instructions each).
    private mutating func name() -> String? {
        guard let range = stringRange() else { return nil }
        switch range.count {
        case 2 where matches(range, "id"): return "id"
        case 4 where matches(range, "args"): return "args"
        case 5 where matches(range, "field"): return "field"
        case 5 where matches(range, "value"): return "value"
        case 6 where matches(range, "invoke"): return "invoke"
        case 7 where matches(range, "session"): return "session"
        case 7 where matches(range, "command"): return "command"
        case 8 where matches(range, "setField"): return "setField"
        case 15 where matches(range, "$/cancelRequest"): return "$/cancelRequest"
        case 16 where matches(range, "expectedRevision"): return "expectedRevision"
        default: return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }

    /// A string of printable ASCII without escapes.
    private mutating func asciiString() -> String? {
        guard let range = stringRange() else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Where the contents of a string of printable ASCII without escapes lie.
    private mutating func stringRange() -> Range<Int>? {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var position = start
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") { break }
            guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
            position += 1
        }
        guard position < bytes.count else { return nil }
        index = position + 1
        return start..<position
    }

    private func matches(_ range: Range<Int>, _ word: StaticString) -> Bool {
        guard range.count == word.utf8CodeUnitCount else { return false }
        return memcmp(bytes.baseAddress! + range.lowerBound, word.utf8Start, range.count) == 0
    }

    private mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }
}
