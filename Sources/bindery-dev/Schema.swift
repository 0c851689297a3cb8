import JSONRPC

/// What bindery-dev needs of a view model type's schema (`viewModels/describe`): its hash, its
/// writable fields in order, and every member a session of it can observe.
struct Schema: Equatable {
    let type: String
    let hash: String
    let writable: [String]
    /// Fields, outputs, and `c.enabled` / `c.running` for every command `c`.
    let members: Set<String>

    init?(_ json: JSONValue) {
        guard let type = json["type"]?.stringValue else { return nil }
        self.type = type
        hash = json["schemaHash"]?.stringValue ?? ""
        var writable: [String] = []
        var members: Set<String> = []
        for field in json["fields"]?.arrayValue ?? [] {
            guard let name = field["name"]?.stringValue else { continue }
            members.insert(name)
            if field["writable"] == .bool(true) { writable.append(name) }
        }
        for command in json["commands"]?.arrayValue ?? [] {
            guard let name = command["name"]?.stringValue else { continue }
            members.insert(name + ".enabled")
            members.insert(name + ".running")
        }
        self.writable = writable
        self.members = members
    }

    /// The schemas of a `viewModels/describe` (or `initialize`) result, by type name.
    static func all(in result: JSONValue) -> [String: Schema] {
        var schemas: [String: Schema] = [:]
        for json in result["viewModels"]?.arrayValue ?? [] {
            if let schema = Schema(json) { schemas[schema.type] = schema }
        }
        return schemas
    }

    /// The names of the types that differ between two daemons: changed, added or removed, sorted.
    static func changedTypes(from old: [String: Schema], to new: [String: Schema]) -> [String] {
        Set(old.keys).union(new.keys).filter { old[$0]?.hash != new[$0]?.hash }.sorted()
    }
}
