/// The type of an exposed value, as the schema tells clients.
public indirect enum ValueType: Sendable, Equatable, CustomStringConvertible {
    public static func == (left: ValueType, right: ValueType) -> Bool {
        switch (left, right) {
        case (.string, .string), (.bool, .bool), (.integer, .integer), (.number, .number), (.any, .any): true
        case (.enumeration(let a), .enumeration(let b)): a == b
        case (.array(let a), .array(let b)), (.set(let a), .set(let b)), (.dictionary(let a), .dictionary(let b)),
             (.optional(let a), .optional(let b)): a == b
        case (.object(let a, let x), .object(let b, let y)): a == b && x == y
        case (.union(let a, let x), .union(let b, let y)): a == b && x == y
        case (.formatted(let a, let x), .formatted(let b, let y)): a == b && x == y
        case (.viewModel(let a, _), .viewModel(let b, _)): a == b
        default: false
        }
    }

    case string
    case bool
    case integer
    case number
    /// An enum without associated values, sent as a string: its raw value when that is a
    /// `String`, else its case name.
    case enumeration([String])
    case array(ValueType)
    /// A `Set` (or any `SetAlgebra` sequence): an array without duplicates, sorted.
    case set(ValueType)
    /// A dictionary with `String` or integer keys: a JSON object, its keys sorted.
    case dictionary(ValueType)
    /// A struct, sent as a JSON object: its Swift name and its members, in order.
    case object(String, [Member])
    /// An enum with associated values: `{"case": name, ...its payload's members}`.
    case union(String, [Case])
    /// The wrapped type, or null.
    case optional(ValueType)
    /// A base type with a `format` that says how to read it (`"date-time"`, `"uuid"`, `"decimal"`...).
    case formatted(ValueType, format: String)
    /// A child view model: `{"session": id}` of its own session; its type's schema, nested.
    case viewModel(String, schema: @MainActor @Sendable () -> JSONValue)
    /// A value whose type Bindery cannot describe ahead of time (an associated value of an enum
    /// that is not `Decodable`); its JSON is whatever the value is.
    case any

    /// A case of an enum with associated values: its name and its payload's members (unlabelled
    /// associated values are `_0`, `_1`, ... as in Swift's own `Codable`).
    public struct Case: Sendable, Equatable {
        public var name: String
        public var members: [Member]

        public init(name: String, members: [Member]) {
            self.name = name
            self.members = members
        }
    }

    /// A member of an object: absent from the JSON when `isOptional` and nil (never null).
    public struct Member: Sendable, Equatable {
        public var name: String
        public var type: ValueType
        public var isOptional: Bool

        public init(name: String, type: ValueType, isOptional: Bool) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
        }
    }

    /// Whether values of this type may hold a child view model.
    var containsViewModel: Bool {
        switch self {
        case .viewModel: true
        case .array(let inner), .set(let inner), .dictionary(let inner), .optional(let inner), .formatted(let inner, _):
            inner.containsViewModel
        case .object(_, let members): members.contains { $0.type.containsViewModel }
        case .union(_, let cases): cases.contains { $0.members.contains { $0.type.containsViewModel } }
        case .any: true
        default: false
        }
    }

    /// Whether null is a valid value.
    public var isNullable: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The type without its optionality.
    public var unwrapped: ValueType {
        if case .optional(let wrapped) = self { return wrapped.unwrapped }
        return self
    }

    /// The schema members describing this type: `type`, and `format`, `cases`, `items`,
    /// `uniqueItems`, `values`, `typeName` and `members`, `nullable` where they apply.
    public var schema: JSONObject {
        var object = JSONObject(minimumCapacity: 4)
        describe(unwrapped, into: &object)
        object.append("nullable", .bool(isNullable))
        return object
    }

    private func describe(_ type: ValueType, into object: inout JSONObject) {
        switch type {
        case .string: object.append("type", "string")
        case .bool: object.append("type", "boolean")
        case .integer: object.append("type", "integer")
        case .number: object.append("type", "number")
        case .any: object.append("type", "any")
        case .viewModel(let name, let schema):
            object.append("type", "viewModel")
            object.append("typeName", .string(name))
            object.append("schema", MainActor.assumeIsolated { ChildSchemas.nested(name, schema) })
        case .formatted(let base, let format):
            describe(base, into: &object)
            object.append("format", .string(format))
        case .object(let name, let members):
            object.append("type", "object")
            object.append("typeName", .string(name))
            object.append("members", Self.describe(members))
        case .union(let name, let cases):
            object.append("type", "union")
            object.append("typeName", .string(name))
            object.append("cases", .array(cases.map { ["name": .string($0.name), "members": Self.describe($0.members)] }))
        case .enumeration(let cases):
            object.append("type", "enum")
            object.append("cases", .array(cases.map(JSONValue.string)))
        case .array(let element):
            object.append("type", "array")
            object.append("items", .object(element.schema))
        case .set(let element):
            object.append("type", "array")
            object.append("items", .object(element.schema))
            object.append("uniqueItems", true)
        case .dictionary(let value):
            object.append("type", "dictionary")
            object.append("values", .object(value.schema))
        case .optional(let wrapped): describe(wrapped.unwrapped, into: &object)
        }
    }

    private static func describe(_ members: [Member]) -> JSONValue {
        .array(members.map { member in
            var described = JSONObject(minimumCapacity: 5)
            described.append("name", .string(member.name))
            for (key, value) in member.type.schema.members { described.append(key, value) }
            described.append("optional", .bool(member.isOptional))
            return .object(described)
        })
    }

    /// The type in words, for error messages: "string", "integer or null", "one of \"a\", \"b\"".
    public var description: String {
        switch self {
        case .string: "string"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .object(let name, _): "object (\(name))"
        case .union(let name, let cases): "object (\(name)) with \"case\" one of " + cases.map { "\"\($0.name)\"" }.joined(separator: ", ")
        case .enumeration(let cases): "one of " + cases.map { "\"\($0)\"" }.joined(separator: ", ")
        case .array(let element): "array of \(element)"
        case .set(let element): "array of \(element) without duplicates"
        case .dictionary(let value): "object of \(value)"
        case .optional(let wrapped): "\(wrapped) or null"
        case .formatted(let base, let format): "\(base) (\(format))"
        case .any: "any value"
        case .viewModel(let name, _): "a child view model (\(name))"
        }
    }
}
