/// Child view models: a member whose value is a view model (required, optional, or an array of
/// them — rows) is a child. Each child object is served as a session of its own, opened when its
/// parent first shows it and closed when the parent no longer holds it; the parent's value shows it
/// as `{"session": id}`, so a change inside a row is that row's `didChange` only, and a row keeps
/// its session (its identity) however the rows are inserted, removed or reordered. A request to a
/// row that has gone finds its session closed (-32011) and never reaches another row.
///
/// Main actor only, like sessions.
@MainActor
enum ChildSessions {
    /// The session whose members are being read: children found in them become its children.
    static var reader: Session?

    /// Reads `body` with `session` as the parent of any child view model it meets.
    static func reading<T>(for session: Session, _ body: () -> T) -> T {
        let outer = reader
        reader = session
        defer { reader = outer }
        return body()
    }

    /// The reference to `model` in its parent's value: its child session's id.
    static func reference(to model: AnyObject, of type: ViewModelType) -> JSONValue {
        guard let parent = reader else { return .null }
        return ["session": .int(parent.child(for: model, of: type).id)]
    }
}

/// A child view model's member: the schema of its type, nested (and `null` when an optional one is
/// absent).
@MainActor
enum ChildCoding {
    private static var types: [ObjectIdentifier: ViewModelType] = [:]

    static func describe<Model: ViewModel>(_: Model.Type, into coder: DynamicCoder) {
        let type = childType(Model.self)
        coder.valueType = .viewModel(type.name, schema: { type.schema })
        coder.childType = type
        coder.encodeBody = { value in ChildSessions.reference(to: value as AnyObject, of: type) }
    }

    /// The type of a child class, made once: named by its Swift name, never opened by clients.
    static func childType<Model: ViewModel>(_: Model.Type) -> ViewModelType {
        if let known = types[ObjectIdentifier(Model.self)] { return known }
        let type = ViewModelType(name: _typeName(Model.self, qualified: false), exposure: Model.exposure,
                                 make: { _ -> Model in throw OpenError("\(Model.self) is a child view model: its parent makes it") })
        types[ObjectIdentifier(Model.self)] = type
        return type
    }
}

/// Nested schemas of child types: a type that contains itself (a tree of view models) is
/// described inside itself by name only.
@MainActor
enum ChildSchemas {
    private static var inProgress: Set<String> = []

    static func nested(_ name: String, _ schema: () -> JSONValue) -> JSONValue {
        guard inProgress.insert(name).inserted else { return ["type": .string(name)] }
        defer { inProgress.remove(name) }
        return schema()
    }
}
