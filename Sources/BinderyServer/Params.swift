import Bindery

/// The `params` of a request, read with errors that name the offending member.
///
/// Absent and null params read as an empty object (Emacs sends `"params": null`); members a method
/// does not know are ignored.
struct Params {
    private let object: JSONObject
    /// A flat request's members (the hot path), when the params came that way.
    private let flat: FlatParams?

    init(_ params: RequestParams) throws(RPCError) {
        switch params {
        case .flat(let members):
            object = JSONObject()
            flat = members
        case .json(nil), .json(.null?):
            object = JSONObject()
            flat = nil
        case .json(.object(let object)?):
            self.object = object
            flat = nil
        case .json(let other?):
            throw .invalidParams("params must be an object, not \(other.typeName)")
        }
    }

    /// The member named `key`, if present.
    subscript(key: String) -> JSONValue? {
        if let flat { return flat[key] }
        return object[key]
    }

    /// A required member of any type; null counts as present.
    func value(_ key: String) throws(RPCError) -> JSONValue {
        guard let value = self[key] else { throw .invalidParams("missing param \"\(key)\"", param: key) }
        return value
    }

    func string(_ key: String) throws(RPCError) -> String {
        let value = try value(key)
        guard case .string(let string) = value else { throw wrongType(key, "a string", value) }
        return string
    }

    func int(_ key: String) throws(RPCError) -> Int {
        let value = try value(key)
        guard case .int(let int) = value else { throw wrongType(key, "an integer", value) }
        return int
    }

    func optionalInt(_ key: String) throws(RPCError) -> Int? {
        guard let value = self[key], value != .null else { return nil }
        guard case .int(let int) = value else { throw wrongType(key, "an integer", value) }
        return int
    }

    func optionalString(_ key: String) throws(RPCError) -> String? {
        guard let value = self[key], value != .null else { return nil }
        guard case .string(let string) = value else { throw wrongType(key, "a string", value) }
        return string
    }

    func optionalObject(_ key: String) throws(RPCError) -> JSONObject? {
        guard let value = self[key], value != .null else { return nil }
        guard case .object(let members) = value else { throw wrongType(key, "an object", value) }
        return members
    }

    func optionalStringArray(_ key: String) throws(RPCError) -> [String]? {
        guard let value = self[key], value != .null else { return nil }
        guard case .array(let elements) = value else { throw wrongType(key, "an array of strings", value) }
        var strings: [String] = []
        for element in elements {
            guard case .string(let string) = element else { throw wrongType(key, "an array of strings", value) }
            strings.append(string)
        }
        return strings
    }

    func stringArray(_ key: String) throws(RPCError) -> [String] {
        guard let strings = try optionalStringArray(key) else {
            throw self[key] == nil ? .invalidParams("missing param \"\(key)\"", param: key)
                : wrongType(key, "an array of strings", .null)
        }
        return strings
    }

    private func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> RPCError {
        .invalidParams("param \"\(key)\" must be \(expected), not \(found.typeName)", param: key)
    }
}

/// A request's params as they were read: a JSON value from the general parser (nil when absent),
/// or a flat request's members, read without a tree.
enum RequestParams {
    case json(JSONValue?)
    case flat(FlatParams)
}
