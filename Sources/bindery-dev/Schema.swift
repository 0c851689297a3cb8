import JSONRPC

/// What bindery-dev needs of a view model type's schema (`viewModels/describe`): its hash, its
/// writable fields in order, every member a session of it can observe, and which members hold
/// child view models (and of what type).
struct Schema: Equatable {
    let type: String
    let hash: String
    let writable: [String]
    /// Fields, outputs, and `c.enabled` / `c.running` for every command `c`.
    let members: Set<String>
    /// Members whose value shows child view models (`{"session": id}`, alone, optional or in a
    /// list), by name, with the child's type name.
    let childMembers: [String: String]

    init?(_ json: JSONValue) {
        guard let type = json["type"]?.stringValue else { return nil }
        self.type = type
        hash = json["schemaHash"]?.stringValue ?? ""
        var writable: [String] = []
        var members: Set<String> = []
        var childMembers: [String: String] = [:]
        for field in json["fields"]?.arrayValue ?? [] {
            guard let name = field["name"]?.stringValue else { continue }
            members.insert(name)
            if field["writable"] == .bool(true) { writable.append(name) }
            if let child = Self.viewModelType(in: field) { childMembers[name] = child["typeName"]?.stringValue ?? child["type"]?.stringValue }
        }
        for command in json["commands"]?.arrayValue ?? [] {
            guard let name = command["name"]?.stringValue else { continue }
            members.insert(name + ".enabled")
            members.insert(name + ".running")
        }
        self.writable = writable
        self.members = members
        self.childMembers = childMembers
    }

    /// The view model type object of a member (itself, or its list's items), if it holds children.
    private static func viewModelType(in typeObject: JSONValue) -> JSONValue? {
        if typeObject["type"] == .string("viewModel") { return typeObject }
        if let items = typeObject["items"] { return viewModelType(in: items) }
        // A type that contains itself is described inside itself by `{"type": <name>}` only.
        return nil
    }

    /// The schemas of a `viewModels/describe` (or `initialize`) result, by type name: the
    /// registered types, and every child type nested in them, by its `typeName`.
    static func all(in result: JSONValue) -> [String: Schema] {
        var schemas: [String: Schema] = [:]
        for json in result["viewModels"]?.arrayValue ?? [] {
            if let schema = Schema(json) { schemas[schema.type] = schema }
        }
        return schemas
    }

    /// The child types nested in the schemas of a `viewModels/describe` result, by type name.
    static func childTypes(in result: JSONValue) -> [String: Schema] {
        var found: [String: Schema] = [:]
        func visit(_ json: JSONValue) {
            for field in json["fields"]?.arrayValue ?? [] {
                guard let child = viewModelType(in: field), let name = child["typeName"]?.stringValue,
                      let nested = child["schema"], found[name] == nil else { continue }
                // A child's schema is named by its registration (if any); children name the Swift type.
                found[name] = Schema(nested.setting("type", .string(name)))
                visit(nested)
            }
        }
        for json in result["viewModels"]?.arrayValue ?? [] { visit(json) }
        return found
    }

    /// The names of the types that differ between two daemons: changed, added or removed, sorted.
    static func changedTypes(from old: [String: Schema], to new: [String: Schema]) -> [String] {
        Set(old.keys).union(new.keys).filter { old[$0]?.hash != new[$0]?.hash }.sorted()
    }
}
