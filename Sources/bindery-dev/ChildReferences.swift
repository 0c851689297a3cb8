import JSONRPC

/// A child view model as a parent's value shows it, `{"session": id}` (alone, optional, or in a
/// list): reading and rewriting those ids, which differ between the client and each daemon.
/// Only the members a schema says hold children are looked into, so a struct of the user's that
/// happens to look like one is left alone.
enum ChildReferences {
    /// The id of a child reference, or nil when `value` is not one.
    static func id(of value: JSONValue) -> Int? {
        guard case .object(let object) = value, object.count == 1 else { return nil }
        return object["session"]?.intValue
    }

    /// `value` with every child reference's id replaced by `map` (left as it is where `map` says nil).
    static func mapping(_ value: JSONValue, _ map: (Int) -> Int?) -> JSONValue {
        if let id = id(of: value) { return ["session": .int(map(id) ?? id)] }
        if case .array(let elements) = value { return .array(elements.map { mapping($0, map) }) }
        return value
    }

    /// The ids of the children a value shows, in order.
    static func ids(in value: JSONValue) -> [Int] {
        if let id = id(of: value) { return [id] }
        if case .array(let elements) = value { return elements.flatMap(ids(in:)) }
        return []
    }

    /// A state's (or a didChange's `changes`) child members rewritten by `map`; every member when
    /// the type's schema is not known.
    static func mapping(state: JSONObject, schema: Schema?, _ map: (Int) -> Int?) -> JSONObject {
        JSONObject(state.members.map { member in
            guard schema == nil || schema?.childMembers[member.key] != nil else { return member }
            return (member.key, mapping(member.value, map))
        })
    }

    /// A didChange's `splices` with the child references they insert rewritten by `map`.
    static func mapping(splices: JSONObject, schema: Schema?, _ map: (Int) -> Int?) -> JSONObject {
        JSONObject(splices.members.map { member in
            guard schema == nil || schema?.childMembers[member.key] != nil,
                  let ops = member.value["ops"]?.arrayValue else { return member }
            let mapped = ops.map { op in op.setting("insert", op["insert"].map { mapping($0, map) }) }
            return (member.key, member.value.setting("ops", .array(mapped)))
        })
    }

    /// The children a state shows, by member, in order.
    static func ids(in state: JSONObject, schema: Schema?) -> [Int] {
        state.members.flatMap { member -> [Int] in
            guard schema == nil || schema?.childMembers[member.key] != nil else { return [] }
            return ids(in: member.value)
        }
    }

    /// The children two states show at the same place (member, then position in its list), as
    /// (first's id, second's id): how a reload pairs the client's children with the new daemon's.
    static func pairs(_ first: JSONObject, _ second: JSONObject, schema: Schema?) -> [(Int, Int)] {
        var pairs: [(Int, Int)] = []
        for member in first.members {
            guard schema == nil || schema?.childMembers[member.key] != nil, let other = second[member.key] else { continue }
            pairs += zip(ids(in: member.value), ids(in: other)).map { ($0, $1) }
        }
        return pairs
    }
}
