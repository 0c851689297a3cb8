// Declarations that cannot work, made unavailable with a message that says why: Swift then reports
// each such line of an exposure, instead of failing the whole `Exposure { … }` block at its first
// mistake with "contextual closure type expects 1 argument, but 2 were used". (A `Field` on a `let`
// is in DynamicMembers.swift, beside the `Field` it mirrors.)

extension Command {
    @available(*, unavailable, message: "a command takes at most one argument value after the model: put several in a struct (or a tuple) of your own")
    public init<A, B, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                              perform: @escaping @MainActor (Model, A, B) async throws -> Result) {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "a command takes at most one argument value after the model: put several in a struct (or a tuple) of your own")
    public init<A, B, C, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                 perform: @escaping @MainActor (Model, A, B, C) async throws -> Result) {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "'enabled:' needs a Bool property of the view model")
    public init<Enabled, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Enabled>, undoable: Bool = false,
                                 perform: @escaping @MainActor (Model) async throws -> Result) {
        fatalError("unavailable")
    }

    @available(*, unavailable, message: "'enabled:' needs a Bool property of the view model")
    public init<Enabled, Arguments, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Enabled>, undoable: Bool = false,
                                            perform: @escaping @MainActor (Model, Arguments) async throws -> Result) {
        fatalError("unavailable")
    }
}
