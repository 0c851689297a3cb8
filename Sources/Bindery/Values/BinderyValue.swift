/// A Swift type whose values travel as JSON: the type of an exposed field, output or command result.
///
/// The standard scalars, optionals and arrays conform already. For your own types, declare
/// ``BinderyEnum`` (string-backed enums; their cases appear in the schema) or ``BinderyCodable``
/// (any `Codable` struct) and the conformance is written for you.
public protocol BinderyValue {
    /// How the schema describes this type to clients.
    static var valueType: ValueType { get }
    /// This value as JSON.
    var jsonValue: JSONValue { get }
    /// Reads a value from JSON, or says what was expected.
    init(jsonValue: JSONValue) throws(ValueError)
}

/// A JSON value that does not fit a Swift type; the message names the expected type.
public struct ValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The expected type as the schema names it ("string", "integer or null", ...).
    public var expected: String
    /// What was found instead, in a few words ("boolean", "3.5", ...).
    public var found: String
    public var reason: String?

    public init(expected: String, found: String, reason: String? = nil) {
        self.expected = expected
        self.found = found
        self.reason = reason
    }

    public init(expected: ValueType, found json: JSONValue, reason: String? = nil) {
        self.init(expected: expected.description, found: json.typeName, reason: reason)
    }

    public var description: String {
        "expected \(expected), found \(found)" + (reason.map { " (\($0))" } ?? "")
    }
}
