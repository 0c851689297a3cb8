import JSONRPC

/// One place where two JSON values differ as a client would see them: member order and white space
/// do not count, numbers are compared as numbers (`3` and `3.0` are the same), strings by their
/// Unicode scalars.
///
/// ```swift
/// JSONDifference.between(expected: ["a": 1, "b": [true]], actual: ["b": [false], "a": 1.0])
/// // [b[0]: expected true, actual false]
/// ```
public struct JSONDifference: Sendable, CustomStringConvertible {
    /// Where, from the message's root: `params.changes.greeting`, `result.state["login.enabled"]`,
    /// `params.splices.rows.ops[0].insert[1]`; empty for the root itself.
    public var path: String
    /// The expected value, nil when the member was not there.
    public var expected: JSONValue?
    /// The actual value, nil when the member is not there.
    public var actual: JSONValue?

    public var description: String {
        "\(path.isEmpty ? "the message" : path): expected \(Self.show(expected)), actual \(Self.show(actual))"
    }

    /// Every difference, depth first in the expected value's member order (then members only the
    /// actual value has).
    public static func between(expected: JSONValue, actual: JSONValue, at path: String = "") -> [JSONDifference] {
        switch (expected, actual) {
        case (.object(let left), .object(let right)):
            var differences: [JSONDifference] = []
            for (key, value) in left.members {
                let inner = member(path, key)
                if let other = right[key] {
                    differences += between(expected: value, actual: other, at: inner)
                } else {
                    differences.append(JSONDifference(path: inner, expected: value, actual: nil))
                }
            }
            for (key, value) in right.members where left[key] == nil {
                differences.append(JSONDifference(path: member(path, key), expected: nil, actual: value))
            }
            return differences
        case (.array(let left), .array(let right)):
            var differences: [JSONDifference] = []
            for index in 0..<max(left.count, right.count) {
                let inner = "\(path)[\(index)]"
                // Optional.none, not `nil`: JSONValue is itself expressible by `nil` (JSON null).
                let value: JSONValue? = index < left.count ? left[index] : .none
                let other: JSONValue? = index < right.count ? right[index] : .none
                switch (value, other) {
                case (let value?, let other?): differences += between(expected: value, actual: other, at: inner)
                case (let value, let other): differences.append(JSONDifference(path: inner, expected: value, actual: other))
                }
            }
            return differences
        default:
            return expected.isSameValue(as: actual) ? [] : [JSONDifference(path: path, expected: expected, actual: actual)]
        }
    }

    /// `path.key`, or `path["key"]` for a key that is not a plain name (`login.enabled`, `4`).
    private static func member(_ path: String, _ key: String) -> String {
        let plain = key.first.map { $0.isLetter || $0 == "_" || $0 == "$" } == true
            && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
        if plain { return path.isEmpty ? key : path + "." + key }
        return path + "[" + String(decoding: JSONWriter.bytes(.string(key)), as: UTF8.self) + "]"
    }

    /// A value as JSON, cut short past 200 characters; "(absent)" for none.
    static func show(_ value: JSONValue?) -> String {
        guard let value else { return "(absent)" }
        let text = String(decoding: JSONWriter.bytes(value), as: UTF8.self)
        return text.count > 200 ? text.prefix(200) + "…" : text
    }
}
