/// The id of a JSON-RPC request: an integer or a string, echoed back exactly as it came.
///
/// JSON-RPC also allows `null` and discourages fractions; Bindery answers a `null` id with `null`
/// (see ``Request``) and rejects fractional, boolean, array and object ids as invalid requests.
public enum RequestID: Sendable, Hashable, CustomStringConvertible {
    case int(Int)
    case string(String)

    /// Ids are the client's opaque names, compared by Unicode scalars: `"\u{E9}"` and `"e\u{301}"` are
    /// two ids (Swift's `String ==` would make them one, and cancel the wrong request).
    public static func == (left: RequestID, right: RequestID) -> Bool {
        switch (left, right) {
        case (.int(let left), .int(let right)): left == right
        case (.string(let left), .string(let right)): left.hasSameScalars(as: right)
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .int(let value):
            hasher.combine(0)
            hasher.combine(value)
        case .string(let value):
            hasher.combine(1)
            for byte in value.utf8 { hasher.combine(byte) }
        }
    }

    /// The id read from a message's `id` member, or `nil` when that member is not a valid id.
    public init?(json: JSONValue) {
        switch json {
        case .int(let value): self = .int(value)
        case .string(let value): self = .string(value)
        default: return nil
        }
    }

    public var json: JSONValue {
        switch self {
        case .int(let value): .int(value)
        case .string(let value): .string(value)
        }
    }

    public var description: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): "\"\(value)\""
        }
    }
}
