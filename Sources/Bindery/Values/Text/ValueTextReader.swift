/// Text a person typed, read as a value of a type: the grammar ``ValueText`` writes, a little
/// more forgiving (spaces anywhere between parts, `yes`/`no`, a case in any letter case, a struct
/// with or without its name, `{…}` for `(…)`).
public struct ValueTextError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the type accepts, in a few words, for the face to show.
    public var expected: String
    /// Where and why reading stopped.
    public var reason: String
    public var description: String { "expected \(expected): \(reason)" }
}

extension ValueText {
    /// The JSON value `text` stands for, as a value of `type`; throws ``ValueTextError`` naming what
    /// the type accepts when it cannot be read (nothing is guessed).
    public static func read(_ text: String, as type: ValueType) throws(ValueTextError) -> JSONValue {
        let trimmed = text.trimmingSpaces
        if case .optional(let inner) = type {
            if trimmed.isEmpty || trimmed == "nil" { return .null }
            return try read(text, as: inner)
        }
        switch type {
        // The top level's strings are the text itself: nothing to quote or escape.
        case .string: return .string(text)
        case .formatted(.string, _): return .string(trimmed)
        case .enumeration(let cases):
            if let name = caseNamed(trimmed, in: cases) { return .string(name) }
            throw ValueTextError(expected: expected(type), reason: "\"\(trimmed)\" is not one of them")
        default:
            var reader = Reader(Array(trimmed.unicodeScalars))
            do throws(ReadFailure) {
                let value = try reader.value(as: type)
                reader.skipSpaces()
                guard reader.isAtEnd else { throw ReadFailure("unexpected \(reader.rest) after the value") }
                return value
            } catch {
                throw ValueTextError(expected: expected(type), reason: error.reason)
            }
        }
    }

    /// What `type` accepts, in a few words: what a face shows when a person's text did not fit.
    public static func expected(_ type: ValueType) -> String {
        switch type {
        case .optional(let inner): return expected(inner) + ", or nothing"
        case .string: return "text"
        case .bool: return "true or false"
        case .integer: return "a whole number"
        case .number: return "a number"
        case .any: return "JSON"
        case .viewModel: return "a child view model"
        case .enumeration(let cases): return "one of " + cases.joined(separator: ", ")
        case .array(let element), .set(let element): return "a list [..] of " + expected(element)
        case .dictionary(let value): return "a dictionary [\"key\": ..] of " + expected(value)
        case .object(let name, let members):
            let labels = members.map { $0.name + ($0.isOptional ? "?" : "") + ": .." }.joined(separator: ", ")
            return (name.hasPrefix("(") ? "" : name) + "(" + labels + ")"
        case .union(_, let cases):
            return "one of " + cases.map { $0.members.isEmpty ? $0.name : $0.name + "(..)" }.joined(separator: ", ")
        case .formatted(let base, let format):
            switch format {
            case "date-time": return "a date and time, ISO 8601 (2025-11-25T10:00:00Z)"
            case "uuid": return "a UUID (0F8FAD5B-D9CB-469F-A165-70867728950E)"
            case "uri": return "a URL"
            case "decimal": return "a decimal number (0.30)"
            case "byte": return "bytes in base64"
            case "seconds": return "a number of seconds"
            default: return expected(base)
            }
        }
    }

    static func caseNamed(_ text: String, in cases: [String]) -> String? {
        var text = text
        if text.hasPrefix(".") { text.removeFirst() }
        if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 { text = String(text.dropFirst().dropLast()) }
        if cases.contains(text) { return text }
        let folded = cases.filter { $0.lowercased() == text.lowercased() }
        return folded.count == 1 ? folded[0] : nil
    }
}

struct ReadFailure: Error {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// A recursive-descent reader of the nested form, guided by the expected type.
private struct Reader {
    let scalars: [Unicode.Scalar]
    var index = 0

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var isAtEnd: Bool { index >= scalars.count }
    var rest: String { "\"" + String(String.UnicodeScalarView(scalars[index...].prefix(20))) + "\"" }
    var next: Unicode.Scalar? { isAtEnd ? nil : scalars[index] }

    mutating func skipSpaces() {
        while let next, next.properties.isWhitespace { index += 1 }
    }

    mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        skipSpaces()
        guard next == scalar else { return false }
        index += 1
        return true
    }

    mutating func expect(_ scalar: Unicode.Scalar) throws(ReadFailure) {
        guard take(scalar) else { throw ReadFailure("expected \"\(scalar)\" at " + (isAtEnd ? "the end" : rest)) }
    }

    mutating func value(as type: ValueType) throws(ReadFailure) -> JSONValue {
        skipSpaces()
        if case .optional(let inner) = type {
            let start = index
            if word() == "nil" { return .null }
            index = start
            return try value(as: inner)
        }
        switch type {
        case .string, .formatted(.string, _): return .string(try quoted())
        case .bool:
            switch word().lowercased() {
            case "true", "yes": return true
            case "false", "no": return false
            case let other: throw ReadFailure("\"\(other)\" is not true or false")
            }
        case .integer:
            let token = numberToken()
            guard let value = Int(String(token.filter { $0 != "_" })) else {
                throw ReadFailure("\"\(token)\" is not a whole number")
            }
            return .int(value)
        case .number, .formatted(.number, _), .formatted(.integer, _):
            let token = String(numberToken().filter { $0 != "_" })
            if let integer = Int(token) { return .int(integer) }
            guard let value = Double(token), value.isFinite else { throw ReadFailure("\"\(token)\" is not a number") }
            return .double(value)
        case .formatted(let base, _): return try value(as: base)
        case .enumeration(let cases):
            let name = next == "\"" ? try quoted() : word()
            guard let found = ValueText.caseNamed(name, in: cases) else { throw ReadFailure("\"\(name)\" is not one of \(cases)") }
            return .string(found)
        case .array(let element), .set(let element): return .array(try list(of: element))
        case .dictionary(let valueType): return .object(try dictionary(of: valueType))
        case .object(let name, let members):
            skipTypeName(name)
            return .object(try fields(members, closing: try opening()))
        case .union(_, let cases):
            var name = word()
            if name.hasPrefix(".") { name.removeFirst() }
            guard let chosen = cases.first(where: { $0.name == name })
                ?? cases.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw ReadFailure("\"\(name)\" is not one of \(cases.map(\.name))")
            }
            var object: JSONObject = ["case": .string(chosen.name)]
            skipSpaces()
            if next == "(" || next == "{" {
                for member in try fields(chosen.members, closing: try opening()).members { object.append(member.key, member.value) }
            } else if chosen.members.contains(where: { !$0.isOptional }) {
                throw ReadFailure("\(chosen.name) needs (\(chosen.members.map(\.name).joined(separator: ", ")))")
            }
            return .object(object)
        case .any, .viewModel: return try json()
        case .optional: return .null  // handled above
        }
    }

    /// `(` or `{`; returns the closing one.
    mutating func opening() throws(ReadFailure) -> Unicode.Scalar {
        if take("(") { return ")" }
        if take("{") { return "}" }
        throw ReadFailure("expected \"(\" at " + (isAtEnd ? "the end" : rest))
    }

    mutating func skipTypeName(_ name: String) {
        skipSpaces()
        let start = index
        if scalars[index...].starts(with: name.unicodeScalars) { index += name.unicodeScalars.count; return }
        _ = word()
        if next != "(" && next != "{" { index = start }
    }

    /// `label: value, ...` up to `closing`; unlabelled values fill `_0`, `_1`, ... in order.
    mutating func fields(_ members: [ValueType.Member], closing: Unicode.Scalar) throws(ReadFailure) -> JSONObject {
        var object = JSONObject()
        var position = 0
        while !take(closing) {
            if !object.isEmpty { try expect(",") }
            skipSpaces()
            let start = index
            var label = next == "`" ? backquoted() : word()
            if label.isEmpty || !take(":") {
                index = start
                label = "_\(position)"
                position += 1
            }
            guard let member = members.first(where: { $0.name == label }) else {
                throw ReadFailure("no member \"\(label)\" (members: \(members.map(\.name).joined(separator: ", ")))")
            }
            object.append(label, try value(as: member.type))
        }
        for member in members where !member.isOptional && object[member.name] == nil {
            throw ReadFailure("\"\(member.name)\" is missing")
        }
        // Declaration order, as the daemon writes objects.
        return JSONObject(members.compactMap { member in object[member.name].map { (key: member.name, value: $0) } })
    }

    mutating func list(of element: ValueType) throws(ReadFailure) -> [JSONValue] {
        try expect("[")
        var items: [JSONValue] = []
        while !take("]") {
            if !items.isEmpty { try expect(",") }
            items.append(try value(as: element))
        }
        return items
    }

    mutating func dictionary(of valueType: ValueType) throws(ReadFailure) -> JSONObject {
        try expect("[")
        var object = JSONObject()
        if take(":") { try expect("]"); return object }
        while !take("]") {
            if !object.isEmpty { try expect(",") }
            skipSpaces()
            let key = next == "\"" ? try quoted() : word()
            try expect(":")
            object.append(key, try value(as: valueType))
        }
        return object
    }

    /// A run of identifier characters (and `.`, for `.case`).
    mutating func word() -> String {
        skipSpaces()
        var scalars = String.UnicodeScalarView()
        while let next, next == "_" || next == "." || next.properties.isXIDContinue {
            scalars.append(next)
            index += 1
        }
        return String(scalars)
    }

    mutating func backquoted() -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        while let next, next != "`" { scalars.append(next); index += 1 }
        if !isAtEnd { index += 1 }
        return String(scalars)
    }

    mutating func numberToken() -> String {
        skipSpaces()
        var scalars = String.UnicodeScalarView()
        while let next, next == "-" || next == "+" || next == "." || next == "_" || next == "e" || next == "E"
                || ("0"..."9").contains(next) {
            scalars.append(next)
            index += 1
        }
        return String(scalars)
    }

    /// A quoted string with Swift's escapes (and JSON's `\uXXXX`).
    mutating func quoted() throws(ReadFailure) -> String {
        try expect("\"")
        var scalars = String.UnicodeScalarView()
        while true {
            guard let scalar = next else { throw ReadFailure("a quoted text is not closed") }
            index += 1
            if scalar == "\"" { return String(scalars) }
            guard scalar == "\\" else { scalars.append(scalar); continue }
            guard let escaped = next else { throw ReadFailure("a quoted text is not closed") }
            index += 1
            switch escaped {
            case "n": scalars.append("\n")
            case "r": scalars.append("\r")
            case "t": scalars.append("\t")
            case "0": scalars.append("\0")
            case "u":
                let braced = take("{")
                var digits = ""
                while let next, next.properties.isASCIIHexDigit, braced || digits.count < 4 {
                    digits.unicodeScalars.append(next)
                    index += 1
                }
                if braced { try expect("}") }
                guard let code = UInt32(digits, radix: 16), let value = Unicode.Scalar(code) else {
                    throw ReadFailure("\\u\(digits) is not a character")
                }
                scalars.append(value)
            default: scalars.append(escaped)
            }
        }
    }

    /// Any JSON, for `any`: what the daemon's JSON parser reads, from here to the end.
    mutating func json() throws(ReadFailure) -> JSONValue {
        let text = String(String.UnicodeScalarView(scalars[index...]))
        index = scalars.count
        do {
            return try JSONParser.parse(Array(text.utf8))
        } catch {
            throw ReadFailure("not JSON")
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var scalars = Substring(self).unicodeScalars
        while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
