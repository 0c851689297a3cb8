/// A value as one line of text a person reads, and such text read back: the daemon's one grammar
/// for every value type, driven by the type's schema (``ValueType``), so that faces draw `display`
/// and send `text` instead of each re-deriving dates, decimals, enums with payloads and structs
/// (protocol.md, "Display and text").
///
/// The form is Swift's own way of writing a value: `42`, `0.5`, `true`, `nil`;
/// `Address(street: "1 Main St", city: "Springfield")`; `circle(radius: 1.5)`, `rectangle(2, 3)`,
/// `point`; `[1, 2]`; `["a": 1]`. Inside those, strings are quoted and enum cases bare. At the top
/// level a string is the text itself (a date's ISO 8601, a UUID, a URL, a decimal, an enum's case).
/// Reading a value's display gives the value back: ``read(_:as:)`` of ``format(_:as:)`` is the
/// identity, for every type (tested on every value type protocol.md lists).
public enum ValueText {
    /// The text `display` carries for `json`, a value of `type`: nil for what a face shows as it
    /// is — a string, a list, a child view model.
    public static func display(_ json: JSONValue, as type: ValueType) -> String? {
        switch json {
        case .string, .array: return nil
        case .object(let object) where object.count == 1 && object["session"] != nil && type.containsViewModel: return nil
        default: return format(json, as: type)
        }
    }

    /// `json` as text: at the top level a string is itself; everything else as ``display(_:as:)`` says.
    public static func format(_ json: JSONValue, as type: ValueType) -> String {
        if case .string(let text) = json { return text }
        if json == .null { return "" }
        var output = ""
        write(json, as: type.unwrapped, into: &output)
        return output
    }

    /// Writes `json` in the nested form: strings quoted, cases bare.
    static func write(_ json: JSONValue, as type: ValueType, into output: inout String) {
        switch (type, json) {
        case (_, .null): output += "nil"
        case (.optional(let inner), _): write(json, as: inner, into: &output)
        case (.formatted(let base, _), _): write(json, as: base, into: &output)
        case (.enumeration, .string(let name)):
            if isIdentifier(name) { output += name } else { quote(name, into: &output) }
        case (_, .string(let text)): quote(text, into: &output)
        case (_, .bool(let value)): output += value ? "true" : "false"
        case (_, .int(let value)): output += String(value)
        case (_, .double(let value)): output += number(value)
        case (.array(let element), .array(let items)), (.set(let element), .array(let items)):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += ", " }
                write(item, as: element, into: &output)
            }
            output += "]"
        case (.dictionary(let value), .object(let object)):
            guard !object.isEmpty else { output += "[:]"; return }
            output += "["
            for (index, member) in object.members.enumerated() {
                if index > 0 { output += ", " }
                quote(member.key, into: &output)
                output += ": "
                write(member.value, as: value, into: &output)
            }
            output += "]"
        case (.union(_, let cases), .object(let object)):
            guard case .string(let name)? = object["case"] else { return writeJSON(json, into: &output) }
            output += name
            let members = cases.first { $0.name == name }?.members ?? []
            let payload = object.members.filter { $0.key != "case" }
            guard !payload.isEmpty else { return }
            writeMembers(payload, members, into: &output)
        case (.object(let name, let members), .object(let object)):
            output += name.hasPrefix("(") ? "" : name
            writeMembers(object.members, members, into: &output)
        default:
            writeJSON(json, into: &output)
        }
    }

    /// `(label: value, ...)`; unlabelled payloads (`_0`, `_1`) by position.
    private static func writeMembers(_ values: [(key: String, value: JSONValue)], _ members: [ValueType.Member],
                                     into output: inout String) {
        output += "("
        for (index, member) in values.enumerated() {
            if index > 0 { output += ", " }
            if !isPositional(member.key) {
                output += isIdentifier(member.key) ? member.key : "`\(member.key)`"
                output += ": "
            }
            let type = members.first { $0.name == member.key }?.type ?? .any
            write(member.value, as: type, into: &output)
        }
        output += ")"
    }

    /// JSON written as it is, for `any`.
    private static func writeJSON(_ json: JSONValue, into output: inout String) {
        output += JSONWriter.string(json)
    }

    /// A double as Swift writes it, a whole one with its `.0` (so it reads back as a number).
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "nil" }
        return "\(value)"
    }

    static func quote(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7f:
                output += "\\u{" + String(scalar.value, radix: 16) + "}"
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    static func isPositional(_ key: String) -> Bool {
        key.hasPrefix("_") && key.count > 1 && key.dropFirst().allSatisfy(\.isASCII) && Int(key.dropFirst()) != nil
    }

    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isXIDStart else { return false }
        guard !["nil", "true", "false"].contains(name) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy { $0.properties.isXIDContinue }
    }
}
