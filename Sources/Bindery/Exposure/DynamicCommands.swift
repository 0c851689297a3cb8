// Commands whose arguments or result are of any type Bindery can show (see DynamicMembers.swift):
// chosen by Swift only where the `BinderyValue` forms in Command.swift do not apply.

extension Command {
    /// A command whose result is of any type Bindery can show.
    public init<Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                        perform: @escaping @MainActor (Model) throws -> Result) {
        let result = DynamicResult<Result>()
        self.init(name, label, enabled, undoable, nil, result.valueType, .sync { model, _ in result.encode(try perform(model)) },
                  problem: result.problem)
    }

    public init<Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                        perform: @escaping @MainActor (Model) async throws -> Result) {
        let result = DynamicResult<Result>()
        self.init(name, label, enabled, undoable, nil, result.valueType, .async { model, _ in result.encode(try await perform(model)) },
                  problem: result.problem)
    }

    /// A command taking arguments of any type Bindery can show: decoded when the type is
    /// `Decodable`, else matched against the values of that type the model holds, as the client was
    /// shown them (`Command("toggle") { (model, task: TaskItem) in model.toggle(task) }` takes a row).
    public init<Arguments, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                   perform: @escaping @MainActor (Model, Arguments) throws -> Result) {
        let arguments = DynamicArguments<Arguments>(), result = DynamicResult<Result>()
        self.init(name, label, enabled, undoable, arguments.valueType, result.valueType, .sync { model, json in
            result.encode(try perform(model, try arguments.decode(json)))
        }, problem: arguments.problem ?? result.problem)
    }

    public init<Arguments, Result>(_ name: String, label: String? = nil, enabled: KeyPath<Model, Bool>? = nil, undoable: Bool = false,
                                   perform: @escaping @MainActor (Model, Arguments) async throws -> Result) {
        let arguments = DynamicArguments<Arguments>(), result = DynamicResult<Result>()
        self.init(name, label, enabled, undoable, arguments.valueType, result.valueType, .async { model, json in
            let decoded = try arguments.decode(json)  // before the first suspension: still the request's turn
            return result.encode(try await perform(model, decoded))
        }, problem: arguments.problem ?? result.problem)
    }
}

/// A command's result of a type found at run time; `Void` is no result.
@MainActor
struct DynamicResult<Result> {
    private let coder: DynamicCoder?

    init() {
        coder = Result.self == Void.self ? nil : DynamicCoders.coder(for: Result.self)
    }

    var valueType: ValueType? { coder?.valueType }
    var problem: String? { coder?.problem.map { "its result: \($0)" } }
    func encode(_ result: Result) -> JSONValue? { coder?.encode(result) }
}

/// A command's arguments of a type found at run time.
@MainActor
struct DynamicArguments<Arguments> {
    private let coder = DynamicCoders.coder(for: Arguments.self)

    var valueType: ValueType { coder.valueType }
    var problem: String? { coder.problem.map { "its arguments: \($0)" } }

    func decode(_ json: JSONValue?) throws -> Arguments {
        do {
            return try ValueMatching.value(json ?? .null, as: Arguments.self, coder)
        } catch {
            throw CommandArgumentsError(error: error)
        }
    }
}
