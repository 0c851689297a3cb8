/// The params of a ``FlatRequest``: a few scalar members, in order.
public struct FlatParams: Sendable, Equatable {
    /// The most members a flat request carries; one with more is read by the general parser.
    public static let capacity = 6

    /// The members as a JSON object, in order.
    public private(set) var object = JSONObject(minimumCapacity: 4)

    public init() {}

    public var count: Int { object.count }

    /// The member named `key` (names are distinct: the scanner declines duplicates).
    public subscript(key: String) -> JSONValue? { object[key] }

    /// Adds a member; false when it is full.
    mutating func append(_ key: String, _ value: JSONValue) -> Bool {
        guard object.count < Self.capacity else { return false }
        object.append(key, value)
        return true
    }
}
