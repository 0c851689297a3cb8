/// A strict RFC 8259 parser from UTF-8 bytes to ``JSONValue``.
///
/// It runs on every inbound message, so it works on raw bytes: strings without escapes become a `String`
/// straight from their byte slice, and only escaped strings go through a scratch buffer. Everything
/// RFC 8259 forbids is an error (comments, trailing commas, `NaN`, leading zeros, raw control
/// characters, invalid UTF-8, lone surrogates), reported with its byte offset.
///
/// ```swift
/// let value = try JSONParser.parse(#"{"id": 1, "method": "open"}"#)
/// value["id"]  // .int(1)
/// ```
public struct JSONParser {
    /// How deeply arrays and objects may nest unless the caller says otherwise.
    public static let defaultMaximumDepth = 512

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let maximumDepth: Int
    private var index = 0
    private var depth = 0
    /// Reused across escaped strings so that each one does not allocate its own buffer.
    private var scratch: [UInt8] = []

    private init(base: UnsafePointer<UInt8>, count: Int, maximumDepth: Int) {
        self.base = base
        self.count = count
        self.maximumDepth = maximumDepth
    }

    /// Parses exactly one JSON value (surrounding whitespace allowed, anything else after it is an error).
    ///
    /// Nesting is checked before descending, so hostile input cannot overflow the stack as long as
    /// `maximumDepth` stays in the hundreds or low thousands.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer, maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            throw JSONParseError(message: "empty input", offset: 0)
        }
        var parser = JSONParser(
            base: start.assumingMemoryBound(to: UInt8.self), count: bytes.count, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        guard parser.index < parser.count else { throw JSONParseError(message: "empty input", offset: 0) }
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < parser.count {
            throw parser.unexpected(parser.base[parser.index], after: "after the JSON value")
        }
        return value
    }

    /// Parses exactly one JSON value from `bytes`.
    public static func parse(
        _ bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JSONParseError) in try parse(raw, maximumDepth: maximumDepth) }
        }
        return try result.get()
    }

    /// Parses exactly one JSON value from the UTF-8 of `text`.
    public static func parse(
        _ text: String, maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        var text = text
        let result = text.withUTF8 { utf8 in
            Result { () throws(JSONParseError) in
                try parse(UnsafeRawBufferPointer(utf8), maximumDepth: maximumDepth)
            }
        }
        return try result.get()
    }

    // MARK: - Values

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        switch try current() {
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "N") where hasPrefix("NaN", at: index):
            throw JSONParseError(message: "NaN is not valid JSON", offset: index)
        case UInt8(ascii: "I") where hasPrefix("Infinity", at: index):
            throw JSONParseError(message: "Infinity is not valid JSON", offset: index)
        case UInt8(ascii: "+"):
            throw JSONParseError(message: "leading '+' is not allowed in numbers", offset: index)
        case UInt8(ascii: "/"):
            throw JSONParseError(message: "comments are not allowed in JSON", offset: index)
        case let byte:
            throw unexpected(byte)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        skipWhitespace()
        if index < count, base[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array([])
        }
        // Growing from empty would reallocate several times for even a short array.
        var elements: [JSONValue] = []
        elements.reserveCapacity(8)
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            switch try current() {
            case UInt8(ascii: ","):
                let comma = index
                index += 1
                skipWhitespace()
                if index < count, base[index] == UInt8(ascii: "]") {
                    throw JSONParseError(message: "trailing comma in array", offset: comma)
                }
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            case let byte:
                throw unexpected(byte, after: "in array, expected ',' or ']'")
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enterContainer()
        index += 1
        skipWhitespace()
        if index < count, base[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(JSONObject())
        }
        // Enough for a typical protocol object in one allocation, where growing from empty takes three.
        var object = JSONObject(minimumCapacity: 8)
        while true {
            let quote = try current()
            guard quote == UInt8(ascii: "\"") else {
                throw unexpected(quote, after: "in object, expected a string key")
            }
            let key = try parseString()
            skipWhitespace()
            let colon = try current()
            guard colon == UInt8(ascii: ":") else {
                throw unexpected(colon, after: "in object, expected ':' after key")
            }
            index += 1
            skipWhitespace()
            // Duplicate keys are kept in order; lookups on JSONObject take the last one.
            object.append(key, try parseValue())
            skipWhitespace()
            switch try current() {
            case UInt8(ascii: ","):
                let comma = index
                index += 1
                skipWhitespace()
                if index < count, base[index] == UInt8(ascii: "}") {
                    throw JSONParseError(message: "trailing comma in object", offset: comma)
                }
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return .object(object)
            case let byte:
                throw unexpected(byte, after: "in object, expected ',' or '}'")
            }
        }
    }

    /// Counts one more level of nesting, refusing it before recursing any deeper.
    @inline(__always)
    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maximumDepth {
            throw JSONParseError(message: "nesting deeper than \(maximumDepth) levels", offset: index)
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        guard hasPrefix(literal, at: index) else {
            throw JSONParseError(message: "invalid literal, expected '\(literal)'", offset: index)
        }
        index += literal.utf8CodeUnitCount
    }

    private func hasPrefix(_ literal: StaticString, at offset: Int) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard count - offset >= length else { return false }
        let bytes = literal.utf8Start
        for i in 0..<length where base[offset + i] != bytes[i] { return false }
        return true
    }

    // MARK: - Numbers

    /// Reads `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    ///
    /// The digits are gathered into a 64-bit mantissa and a decimal exponent as they are checked. A plain
    /// integer that fits becomes `.int`. A double whose mantissa and power of ten are both exact in a
    /// Double is one correctly rounded multiplication or division (Clinger's fast path), which covers
    /// the usual "0.25" or "1.5e3"; anything else goes to the standard library's correctly rounded,
    /// locale-independent conversion.
    private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = base[index] == UInt8(ascii: "-")
        if negative {
            index += 1
            if hasPrefix("Infinity", at: index) {
                throw JSONParseError(message: "-Infinity is not valid JSON", offset: start)
            }
        }
        guard index < count, isDigit(base[index]) else {
            throw JSONParseError(message: "expected a digit after '-'", offset: index)
        }
        var mantissa: UInt64 = 0
        var exact = true  // false once the mantissa has overflowed UInt64
        if base[index] == UInt8(ascii: "0") {
            index += 1
            if index < count, isDigit(base[index]) {
                throw JSONParseError(message: "leading zeros are not allowed in numbers", offset: index - 1)
            }
        } else {
            while index < count, isDigit(base[index]) {
                accumulate(base[index], into: &mantissa, exact: &exact)
                index += 1
            }
        }
        var isInteger = true
        var exponent = 0
        if index < count, base[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try expectDigit("expected a digit after '.'")
            while index < count, isDigit(base[index]) {
                accumulate(base[index], into: &mantissa, exact: &exact)
                exponent -= 1
                index += 1
            }
        }
        if index < count, base[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            var exponentSign = 1
            if index < count, base[index] == UInt8(ascii: "+") || base[index] == UInt8(ascii: "-") {
                if base[index] == UInt8(ascii: "-") { exponentSign = -1 }
                index += 1
            }
            try expectDigit("expected a digit in the exponent")
            var written = 0
            while index < count, isDigit(base[index]) {
                // Capped: anything this large is out of the fast path's range anyway.
                if written < 100_000 { written = written * 10 + Int(base[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            exponent += exponentSign * written
        }
        if isInteger, exact {
            if !negative, mantissa <= UInt64(Int.max) { return .int(Int(mantissa)) }
            if negative, mantissa <= Int.min.magnitude { return .int(Int(truncatingIfNeeded: 0 &- mantissa)) }
        }
        if exact, mantissa <= 1 << 53, exponent.magnitude < UInt(Self.exactPowersOfTen.count) {
            let power = Self.exactPowersOfTen[Int(exponent.magnitude)]
            let magnitude = exponent < 0 ? Double(mantissa) / power : Double(mantissa) * power
            return .double(negative ? -magnitude : magnitude)
        }
        let literal = UnsafeBufferPointer(start: base + start, count: index - start)
        guard let value = Double(String(decoding: literal, as: UTF8.self)) else {
            throw JSONParseError(message: "number out of range", offset: start)
        }
        // Valid JSON beyond Double's range (1e999, a 400-digit integer) reads as ±infinity rather
        // than failing the whole message: the request keeps its id and gets its own answer, and
        // whoever decodes the number rejects it as out of range.
        return .double(value)
    }

    /// 10^0 through 10^22: the powers of ten a Double holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private func accumulate(_ byte: UInt8, into mantissa: inout UInt64, exact: inout Bool) {
        let (times10, overflow1) = mantissa.multipliedReportingOverflow(by: 10)
        let (next, overflow2) = times10.addingReportingOverflow(UInt64(byte &- UInt8(ascii: "0")))
        if overflow1 || overflow2 { exact = false } else { mantissa = next }
    }

    private func expectDigit(_ message: String) throws(JSONParseError) {
        guard index < count, isDigit(base[index]) else {
            throw JSONParseError(message: message, offset: index)
        }
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    // MARK: - Strings

    /// Reads a string starting at its opening quote, leaving `index` after the closing one.
    private mutating func parseString() throws(JSONParseError) -> String {
        let open = index
        var seen: UInt64 = 0
        index = JSONStringScan.firstSpecialByte(in: base, from: open + 1, to: count, seen: &seen)
        guard index < count else { throw JSONParseError(message: "unterminated string", offset: open) }
        switch base[index] {
        case UInt8(ascii: "\""):
            // Fast path: most strings have no escapes and become a String straight from the input bytes.
            let utf8 = UnsafeBufferPointer(start: base + open + 1, count: index - open - 1)
            let string = try makeString(utf8, isASCII: JSONStringScan.isASCII(seen), open: open)
            index += 1
            return string
        case UInt8(ascii: "\\"):
            return try parseEscapedString(open: open, seen: seen)
        case let byte:
            throw controlCharacter(byte)
        }
    }

    /// Continues a string at its first backslash, decoding into `scratch`.
    private mutating func parseEscapedString(open: Int, seen: UInt64) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.reserveCapacity(128)  // growing from empty would reallocate at nearly every escape
        var seen = seen
        var runStart = open + 1
        while true {
            index = JSONStringScan.firstSpecialByte(in: base, from: index, to: count, seen: &seen)
            guard index < count else { throw JSONParseError(message: "unterminated string", offset: open) }
            let byte = base[index]
            guard byte >= 0x20 else { throw controlCharacter(byte) }
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
            if byte == UInt8(ascii: "\"") {
                let string = try scratch.withUnsafeBufferPointer { buffer throws(JSONParseError) in
                    try makeString(buffer, isASCII: JSONStringScan.isASCII(seen), open: open)
                }
                index += 1
                return string
            }
            try decodeEscape(open: open, seen: &seen)
            runStart = index
        }
    }

    /// Decodes the escape at `index` (a backslash) into `scratch` and moves past it.
    ///
    /// A non-ASCII result is noted in `seen`, so that the string goes through UTF-8 validation.
    private mutating func decodeEscape(open: Int, seen: inout UInt64) throws(JSONParseError) {
        let escape = index
        index += 1
        guard index < count else { throw JSONParseError(message: "unterminated string", offset: open) }
        let letter = base[index]
        index += 1
        switch letter {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(letter)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4(escape: escape)
            var scalar = unit
            if unit & 0xFC00 == 0xD800 {
                // A high surrogate must be followed at once by an escaped low one.
                guard hasPrefix("\\u", at: index) else { throw loneSurrogate(unit, at: escape) }
                let lowEscape = index
                index += 2
                let low = try readHex4(escape: lowEscape)
                guard low & 0xFC00 == 0xDC00 else { throw loneSurrogate(unit, at: escape) }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            } else if unit & 0xFC00 == 0xDC00 {
                throw loneSurrogate(unit, at: escape)
            }
            if scalar >= 0x80 { seen |= 0x80 }
            appendUTF8(scalar)
        case 0x21...0x7E:
            throw JSONParseError(message: "invalid escape '\\\(describe(letter))'", offset: escape)
        default:
            let message = "invalid escape, backslash before \(describe(letter))"
            throw JSONParseError(message: message, offset: escape)
        }
    }

    private mutating func readHex4(escape: Int) throws(JSONParseError) -> UInt32 {
        guard count - index >= 4 else { throw badUnicodeEscape(at: escape) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw badUnicodeEscape(at: escape)
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    /// Makes a String of already unescaped UTF-8, refusing invalid UTF-8 rather than repairing it.
    ///
    /// Measured on short keys, `String(unsafeUninitializedCapacity:)` is the cheapest constructor; it would
    /// repair invalid UTF-8 silently, so it only gets input known to be ASCII. Anything else is checked
    /// with `UTF8Span`, which also says where it fails (`String(validating:)` is generic and far slower).
    private func makeString(
        _ utf8: UnsafeBufferPointer<UInt8>, isASCII: Bool, open: Int
    ) throws(JSONParseError) -> String {
        if isASCII {
            return String(unsafeUninitializedCapacity: utf8.count) { $0.initialize(fromContentsOf: utf8) }
        }
        if let span = try? UTF8Span(validating: utf8.span) { return String(copying: span) }
        // Rare path: find the offending byte in the input. Escapes decode to complete UTF-8 sequences,
        // so the raw input between the quotes is invalid at exactly the same place.
        let raw = UnsafeBufferPointer(start: base + open + 1, count: index - open - 1)
        var offset = open + 1
        do { _ = try UTF8Span(validating: raw.span) } catch { offset += error.byteOffsets.lowerBound }
        throw JSONParseError(message: "invalid UTF-8 in string", offset: offset)
    }

    // MARK: - Helpers

    /// The byte at `index`; running out of input where a token must follow is an error.
    @inline(__always)
    private func current() throws(JSONParseError) -> UInt8 {
        guard index < count else { throw JSONParseError(message: "unexpected end of input", offset: index) }
        return base[index]
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while index < count {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func unexpected(_ byte: UInt8, after context: String? = nil) -> JSONParseError {
        let what = (0x21...0x7E).contains(byte) ? "character '\(describe(byte))'" : "byte \(describe(byte))"
        let message = context.map { "unexpected \(what) \($0)" } ?? "unexpected \(what)"
        return JSONParseError(message: message, offset: index)
    }

    private func controlCharacter(_ byte: UInt8) -> JSONParseError {
        JSONParseError(message: "unescaped control character \(describe(byte)) in string", offset: index)
    }

    private func badUnicodeEscape(at offset: Int) -> JSONParseError {
        JSONParseError(message: "invalid \\u escape, expected 4 hex digits", offset: offset)
    }

    private func loneSurrogate(_ unit: UInt32, at offset: Int) -> JSONParseError {
        JSONParseError(message: "lone surrogate \\u\(hex(unit, digits: 4))", offset: offset)
    }

    /// A byte as itself when printable ASCII, else as `0xNN`.
    private func describe(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(UnicodeScalar(byte)) : "0x\(hex(UInt32(byte), digits: 2))"
    }

    private func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
