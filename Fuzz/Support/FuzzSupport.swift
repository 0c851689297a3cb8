// Shared by both libFuzzer targets: compiled into the same module as Sources/JSONRPC by scripts/fuzz.
//
// A failed invariant calls `fuzzFailure`, which prints what broke and traps: libFuzzer treats the trap
// as a crash and writes the input to a crash-<sha1> file.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// FUZZ_STRICT=1 turns the documented findings (Fuzz/README.md) back into failures, so their
/// reproducers in Fuzz/findings/ crash again: `FUZZ_STRICT=1 scripts/fuzz repro framer FILE`.
let strictMode = getenv("FUZZ_STRICT").map { String(cString: $0) == "1" } ?? false

/// The fuzzers' generator: Sources/SeededRandom's SplitMix64 (compiled in by scripts/fuzz), seeded
/// from the input so a crash reproduces exactly.
typealias FuzzRNG = SplitMix64

/// FNV-1a over the input: the seed for whatever the target derives "at random" from it.
func fnv1a(_ bytes: [UInt8]) -> UInt64 {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
    return hash
}

func fuzzFailure(_ what: String, input: [UInt8], _ details: String = "") -> Never {
    var text = "\n=== FUZZ INVARIANT FAILED: \(what)\n"
    text += "input (\(input.count) bytes): \(escaped(input.prefix(400)))\n"
    if !details.isEmpty { text += details + "\n" }
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    fatalError(what)
}

/// Bytes as a Swift-ish literal: printable ASCII as is, everything else as \xNN.
func escaped<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
    var out = ""
    for byte in bytes {
        switch byte {
        case 0x5C: out += "\\\\"
        case 0x0A: out += "\\n"
        case 0x0D: out += "\\r"
        case 0x20...0x7E: out.unicodeScalars.append(UnicodeScalar(byte))
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
        }
    }
    return out
}

// MARK: - JSON invariants

/// What a value becomes after one write: JSON has no NaN or infinities, so the writer emits `null`.
func writtenForm(_ value: JSONValue) -> JSONValue {
    switch value {
    case .double(let number) where !number.isFinite: return .null
    case .array(let elements): return .array(elements.map(writtenForm))
    case .object(let object): return .object(JSONObject(object.members.map { ($0.key, writtenForm($0.value)) }))
    default: return value
    }
}

/// Structural equality that tells doubles apart by bit pattern (so -0.0 ≠ 0.0 and 1 ulp off is caught),
/// and `.int(3)` from `.double(3)`.
func identical(_ a: JSONValue, _ b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.bool(let x), .bool(let y)): return x == y
    case (.int(let x), .int(let y)): return x == y
    case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): return Array(x.utf8) == Array(y.utf8)
    case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(identical)
    case (.object(let x), .object(let y)):
        return x.count == y.count
            && zip(x.members, y.members).allSatisfy { Array($0.key.utf8) == Array($1.key.utf8) && identical($0.value, $1.value) }
    default: return false
    }
}

/// Parses `bytes` with JSONParser and checks it against the reference parser and the writer.
///
/// - Accepts exactly what the reference grammar accepts (RFC 8259, depth limit included), with the
///   same value: doubles to the bit, strings byte for byte.
/// - Accepted input is valid UTF-8 as a whole; an error's offset lies within the input.
/// - write → parse gives the written form of the value (non-finite doubles become null), and writing
///   that again gives the same bytes.
@discardableResult
func checkJSON(_ bytes: [UInt8], maximumDepth: Int = 512) -> JSONValue? {
    let parsed: JSONValue?
    var parseError: JSONParseError?
    do { parsed = try JSONParser.parse(bytes, maximumDepth: maximumDepth) } catch {
        parsed = nil
        parseError = error
    }
    let reference = ReferenceJSON.parse(bytes, maximumDepth: maximumDepth)
    switch (parsed, reference) {
    case (nil, nil):
        let offset = parseError!.offset
        if offset < 0 || offset > bytes.count {
            fuzzFailure("parse error offset out of range", input: bytes, "\(parseError!)")
        }
        return nil
    case (let value?, nil):
        fuzzFailure("JSONParser accepted what the reference grammar rejects", input: bytes, "parsed: \(value)")
    case (nil, let value?):
        fuzzFailure("JSONParser rejected valid JSON", input: bytes, "error: \(parseError!)\nreference: \(value)")
    case (let value?, let expected?):
        if !identical(value, expected) {
            fuzzFailure("JSONParser and the reference disagree on the value", input: bytes,
                        "parsed:    \(debugTree(value))\nreference: \(debugTree(expected))")
        }
        if !isWellFormedUTF8(bytes) {
            fuzzFailure("JSONParser accepted input that is not UTF-8", input: bytes)
        }
        checkRoundTrip(value, input: bytes)
        return value
    }
}

/// write → parse → equal (modulo non-finite doubles), and the second write is byte-identical.
func checkRoundTrip(_ value: JSONValue, input: [UInt8]) {
    let written = JSONWriter.bytes(value)
    var appended: [UInt8] = [0x41]
    JSONWriter.write(value, into: &appended)
    if appended.dropFirst().elementsEqual(written) == false {
        fuzzFailure("JSONWriter.write(into:) and JSONWriter.bytes differ", input: input)
    }
    let reparsed: JSONValue
    do { reparsed = try JSONParser.parse(written, maximumDepth: 512) } catch {
        fuzzFailure("the writer's output does not parse", input: input,
                    "written: \(escaped(written.prefix(400)))\nerror: \(error)")
    }
    if !identical(writtenForm(value), reparsed) {
        fuzzFailure("write → parse is not the identity", input: input,
                    "value:    \(debugTree(value))\nreparsed: \(debugTree(reparsed))\nwritten: \(escaped(written.prefix(400)))")
    }
    let rewritten = JSONWriter.bytes(reparsed)
    if rewritten != written {
        fuzzFailure("writing is not idempotent", input: input,
                    "first:  \(escaped(written.prefix(400)))\nsecond: \(escaped(rewritten.prefix(400)))")
    }
}

/// A description that shows the case of every number (`int 3`, `double 0x...`), for failure reports.
func debugTree(_ value: JSONValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let flag): return "\(flag)"
    case .int(let number): return "int(\(number))"
    case .double(let number): return "double(\(number) bits=0x\(String(number.bitPattern, radix: 16)))"
    case .string(let text): return "\"\(escaped(text.utf8))\""
    case .array(let elements): return "[" + elements.map(debugTree).joined(separator: ",") + "]"
    case .object(let object):
        return "{" + object.members.map { "\"\(escaped($0.key.utf8))\":" + debugTree($0.value) }.joined(separator: ",") + "}"
    }
}

func isWellFormedUTF8(_ bytes: [UInt8]) -> Bool {
    var index = 0
    while index < bytes.count {
        guard let next = ReferenceJSON.utf8Sequence(bytes, at: index) else { return false }
        index = next.end
    }
    return true
}

// MARK: - Reference parser

/// A deliberately plain RFC 8259 parser, written from the grammar and independent of JSONParser's
/// fast paths (SWAR scanning, Clinger's fast path, UTF8Span validation). Numbers follow JSONParser's
/// documented mapping: an integer literal that fits in Int is `.int`, every other number is
/// `Double(literal)` (±infinity beyond Double's range).
struct ReferenceJSON {
    let bytes: [UInt8]
    let maximumDepth: Int
    var index = 0
    var depth = 0

    static func parse(_ bytes: [UInt8], maximumDepth: Int) -> JSONValue? {
        var parser = ReferenceJSON(bytes: bytes, maximumDepth: maximumDepth)
        parser.whitespace()
        guard let value = parser.value() else { return .none }
        parser.whitespace()
        return parser.index == bytes.count ? value : .none
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func whitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    mutating func literal(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return false }
        index += utf8.count
        return true
    }

    mutating func value() -> JSONValue? {
        switch peek {
        case UInt8(ascii: "{")?: return object()
        case UInt8(ascii: "[")?: return array()
        case UInt8(ascii: "\"")?: return string().map(JSONValue.string)
        // Careful: a bare `nil` here would be JSONValue's own nil literal, `.null`.
        case UInt8(ascii: "t")?: return literal("true") ? .bool(true) : .none
        case UInt8(ascii: "f")?: return literal("false") ? .bool(false) : .none
        case UInt8(ascii: "n")?: return literal("null") ? .null : .none
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): return number()
        default: return .none
        }
    }

    mutating func array() -> JSONValue? {
        depth += 1
        guard depth <= maximumDepth else { return .none }
        index += 1
        whitespace()
        var elements: [JSONValue] = []
        if peek == UInt8(ascii: "]") { index += 1; depth -= 1; return .array(elements) }
        while true {
            whitespace()
            guard let element = value() else { return .none }
            elements.append(element)
            whitespace()
            switch peek {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "]")?: index += 1; depth -= 1; return .array(elements)
            default: return .none
            }
        }
    }

    mutating func object() -> JSONValue? {
        depth += 1
        guard depth <= maximumDepth else { return .none }
        index += 1
        whitespace()
        var object = JSONObject()
        if peek == UInt8(ascii: "}") { index += 1; depth -= 1; return .object(object) }
        while true {
            whitespace()
            guard peek == UInt8(ascii: "\""), let key = string() else { return .none }
            whitespace()
            guard peek == UInt8(ascii: ":") else { return .none }
            index += 1
            whitespace()
            guard let member = value() else { return .none }
            object.append(key, member)
            whitespace()
            switch peek {
            case UInt8(ascii: ",")?: index += 1
            case UInt8(ascii: "}")?: index += 1; depth -= 1; return .object(object)
            default: return .none
            }
        }
    }

    mutating func number() -> JSONValue? {
        let start = index
        if peek == UInt8(ascii: "-") { index += 1 }
        func isDigit(_ byte: UInt8?) -> Bool { byte.map { (0x30...0x39).contains($0) } ?? false }
        guard isDigit(peek) else { return .none }
        if peek == UInt8(ascii: "0") {
            index += 1
        } else {
            while isDigit(peek) { index += 1 }
        }
        var integer = true
        if peek == UInt8(ascii: ".") {
            integer = false
            index += 1
            guard isDigit(peek) else { return .none }
            while isDigit(peek) { index += 1 }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            integer = false
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard isDigit(peek) else { return .none }
            while isDigit(peek) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integer, let value = Int(text) { return .int(value) }
        return Double(text).map(JSONValue.double)
    }

    mutating func string() -> String? {
        index += 1
        var scalars = String.UnicodeScalarView()
        while true {
            guard let byte = peek else { return nil }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                index += 1
                guard let letter = peek else { return nil }
                index += 1
                switch letter {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(UnicodeScalar(letter))
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    guard let unit = hex4() else { return nil }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard literal("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                        scalars.append(UnicodeScalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else {
                        guard let scalar = UnicodeScalar(unit) else { return nil }  // a lone low surrogate
                        scalars.append(scalar)
                    }
                default: return nil
                }
            case 0x00..<0x20: return nil
            case 0x20..<0x80:
                scalars.append(UnicodeScalar(byte))
                index += 1
            default:
                guard let sequence = Self.utf8Sequence(bytes, at: index) else { return nil }
                scalars.append(UnicodeScalar(sequence.scalar)!)
                index = sequence.end
            }
        }
    }

    mutating func hex4() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    /// One well-formed UTF-8 sequence at `index` (Unicode Table 3-7), or nil.
    static func utf8Sequence(_ bytes: [UInt8], at index: Int) -> (scalar: UInt32, end: Int)? {
        let lead = bytes[index]
        if lead < 0x80 { return (UInt32(lead), index + 1) }
        let length: Int
        var second: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; second = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; second = 0x80...0x9F
        case 0xF0: length = 4; second = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; second = 0x80...0x8F
        default: return nil
        }
        guard bytes.count - index >= length, second.contains(bytes[index + 1]) else { return nil }
        var scalar = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        return (scalar, index + length)
    }
}
