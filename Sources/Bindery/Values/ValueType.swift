/// The type of an exposed value, as the schema tells clients.
public indirect enum ValueType: Sendable, Equatable, CustomStringConvertible {
    case string
    case bool
    case integer
    case number
    /// A string-backed enum: one of these raw values.
    case enumeration([String])
    case array(ValueType)
    /// A `Codable` struct, sent as a JSON object: its Swift name and its members, in order.
    case object(String, [Member])
    /// The wrapped type, or null.
    case optional(ValueType)

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

    /// The schema members describing this type: `type`, and `cases`, `items`, `typeName` and
    /// `members`, `nullable` where they apply.
    public var schema: JSONObject {
        var object = JSONObject(minimumCapacity: 4)
        switch unwrapped {
        case .string: object.append("type", "string")
        case .bool: object.append("type", "boolean")
        case .integer: object.append("type", "integer")
        case .number: object.append("type", "number")
        case .object(let name, let members):
            object.append("type", "object")
            object.append("typeName", .string(name))
            object.append("members", .array(members.map { member in
                var described = JSONObject(minimumCapacity: 5)
                described.append("name", .string(member.name))
                for (key, value) in member.type.schema.members { described.append(key, value) }
                described.append("optional", .bool(member.isOptional))
                return .object(described)
            }))
        case .enumeration(let cases):
            object.append("type", "enum")
            object.append("cases", .array(cases.map(JSONValue.string)))
        case .array(let element):
            object.append("type", "array")
            object.append("items", .object(element.schema))
        case .optional: preconditionFailure("unwrapped is never optional")
        }
        object.append("nullable", .bool(isNullable))
        return object
    }

    /// The type in words, for error messages: "string", "integer or null", "one of \"a\", \"b\"".
    public var description: String {
        switch self {
        case .string: "string"
        case .bool: "boolean"
        case .integer: "integer"
        case .number: "number"
        case .object(let name, _): "object (\(name))"
        case .enumeration(let cases): "one of " + cases.map { "\"\($0)\"" }.joined(separator: ", ")
        case .array(let element): "array of \(element)"
        case .optional(let wrapped): "\(wrapped) or null"
        }
    }
}
