/// An action a client may invoke: a method of the view model, sync or async, with an optional
/// enabled condition and optional typed arguments.
///
/// ```swift
/// Command("save", enabled: \.canSave) { $0.save() }
/// Command("login", enabled: \.loginInputValid) { try await $0.login() }   // answers when done
/// Command("rename") { (model, name: String) in model.rename(to: name) }  // args decoded as String
/// ```
/// What the closure returns (any ``BinderyValue``) is the invoke's `result`; what it throws answers
/// the invoke with a command-failure error. An async command runs on the main actor like
/// everything else; its state changes reach clients at every suspension point.
@MainActor
public struct Command<Model: AnyObject> {
    let command: ExposedCommand

    // Sync, no arguments: `{ $0.save() }`.
    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body; what it returns is the invoke's `result`, what it throws fails the invoke.
    public init(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                perform: @escaping @MainActor (Model) throws -> Void) {
        self.init(name, label, enabled, undoable, nil, nil, .sync { model, _ in try perform(model); return nil })
    }

    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body; what it returns is the invoke's `result`, what it throws fails the invoke.
    public init<Result: BinderyValue>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                      perform: @escaping @MainActor (Model) throws -> Result) {
        self.init(name, label, enabled, undoable, nil, Result.valueType, .sync { model, _ in try perform(model).jsonValue })
    }

    // Async, no arguments: `{ try await $0.login() }`.
    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body; what it returns is the invoke's `result`, what it throws fails the invoke.
    public init(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                perform: @escaping @MainActor (Model) async throws -> Void) {
        self.init(name, label, enabled, undoable, nil, nil, .async { model, _ in try await perform(model); return nil })
    }

    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body; what it returns is the invoke's `result`, what it throws fails the invoke.
    public init<Result: BinderyValue>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                      perform: @escaping @MainActor (Model) async throws -> Result) {
        self.init(name, label, enabled, undoable, nil, Result.valueType, .async { model, _ in try await perform(model).jsonValue })
    }

    // Sync, with arguments.
    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body, given the model and `invoke`'s `args` decoded as `Arguments` (args
    ///     that do not fit answer -32602); what it returns is the `result`, what it throws fails it.
    public init<Arguments: BinderyValue>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                         perform: @escaping @MainActor (Model, Arguments) throws -> Void) {
        self.init(name, label, enabled, undoable, Arguments.valueType, nil, .sync { model, json in
            try perform(model, try decodeArguments(json)); return nil
        })
    }

    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body, given the model and `invoke`'s `args` decoded as `Arguments` (args
    ///     that do not fit answer -32602); what it returns is the `result`, what it throws fails it.
    public init<Arguments: BinderyValue, Result: BinderyValue>(
        _ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
        perform: @escaping @MainActor (Model, Arguments) throws -> Result
    ) {
        self.init(name, label, enabled, undoable, Arguments.valueType, Result.valueType, .sync { model, json in
            try perform(model, try decodeArguments(json)).jsonValue
        })
    }

    // Async, with arguments.
    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body, given the model and `invoke`'s `args` decoded as `Arguments` (args
    ///     that do not fit answer -32602); what it returns is the `result`, what it throws fails it.
    public init<Arguments: BinderyValue>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                         perform: @escaping @MainActor (Model, Arguments) async throws -> Void) {
        self.init(name, label, enabled, undoable, Arguments.valueType, nil, .async { model, json in
            try await perform(model, try decodeArguments(json)); return nil
        })
    }

    /// - Parameters:
    ///   - name: the command's name on the wire (`invoke`'s `command`).
    ///   - label: what a form's button shows; derived from `name` when nil.
    ///   - enabled: a Bool property; while it reads false, `invoke` answers -32016. Nil: always enabled.
    ///   - undoable: whether `session/undo` can undo it: then its effect on the fields is a step of
    ///     the session's history (it must change nothing but fields). Otherwise running it ends the
    ///     step being built and clears what could be redone.
    ///   - perform: the body, given the model and `invoke`'s `args` decoded as `Arguments` (args
    ///     that do not fit answer -32602); what it returns is the `result`, what it throws fails it.
    public init<Arguments: BinderyValue, Result: BinderyValue>(
        _ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
        perform: @escaping @MainActor (Model, Arguments) async throws -> Result
    ) {
        self.init(name, label, enabled, undoable, Arguments.valueType, Result.valueType, .async { model, json in
            try await perform(model, try decodeArguments(json)).jsonValue
        })
    }

    init(_ name: String, _ label: String?, _ enabled: KeyPath<Model, Bool>?, _ undoable: Bool,
         _ argumentsType: ValueType?, _ resultType: ValueType?, _ body: ExposedCommand.TypedBody<Model>,
         problem: String? = nil) {
        var isEnabled: (@MainActor (AnyObject) -> Bool)?
        if let enabled {
            isEnabled = { model in unsafeDowncast(model, to: Model.self)[keyPath: enabled] }
        }
        command = ExposedCommand(
            name: name, label: label ?? defaultLabel(for: name), argumentsType: argumentsType,
            resultType: resultType, isEnabled: isEnabled, isUndoable: undoable, body: body.erased, problem: problem
        )
    }
}

/// The arguments of an invoke, decoded; absent arguments read as JSON null.
private func decodeArguments<Arguments: BinderyValue>(_ json: JSONValue?) throws -> Arguments {
    do {
        return try Arguments(jsonValue: json ?? .null)
    } catch {
        throw CommandArgumentsError(error: error)
    }
}

/// Arguments that do not fit the command's argument type: an invalid-params error, not a failure.
struct CommandArgumentsError: Error {
    let error: ValueError
}
