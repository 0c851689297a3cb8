/// The members of a JSON object, in the order they were added.
///
/// Order matters to Bindery: the daemon's output must be byte-for-byte reproducible for transcripts.
/// Lookups scan from the end, so with duplicate keys the last one wins, as in most JSON parsers.
/// Objects on this protocol are small (a handful of members), where a scan beats hashing.
/// Equality compares members in order: two objects Bindery built the same way compare equal.
public struct JSONObject: Sendable, Hashable {
    public private(set) var members: [(key: String, value: JSONValue)]

    public init() { members = [] }

    public init(_ members: [(key: String, value: JSONValue)]) { self.members = members }

    public init(minimumCapacity: Int) {
        members = []
        members.reserveCapacity(minimumCapacity)
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Reads the last member named `key`; writing replaces it in place, or appends a new member.
    /// Writing `nil` removes every member of that name.
    public subscript(key: String) -> JSONValue? {
        get {
            // Lengths first: a differing pair of strings costs String's `==` far more than that.
            let length = key.utf8.count
            var index = members.endIndex
            while index > members.startIndex {
                index -= 1
                if members[index].key.utf8.count == length, members[index].key == key { return members[index].value }
            }
            return nil
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = members.lastIndex(where: { $0.key == key }) {
                members[index].value = newValue
            } else {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Removes every member, keeping the storage for the next ones (an object built again and again).
    public mutating func removeAll(keepingCapacity: Bool) {
        members.removeAll(keepingCapacity: keepingCapacity)
    }

    /// Appends without looking for an existing member: for building objects whose keys are known distinct.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append((key: key, value: value))
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (left, right) in zip(lhs.members, rhs.members) where left.key != right.key || left.value != right.value {
            return false
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for member in members {
            hasher.combine(member.key)
            hasher.combine(member.value)
        }
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { (key: $0.0, value: $0.1) })
    }
}
