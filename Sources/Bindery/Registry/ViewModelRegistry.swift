/// The view model types a daemon serves, by the name clients open them with.
///
/// ```swift
/// var registry = ViewModelRegistry()
/// registry.register("email") { _ in EmailViewModel() }
/// registry.register("element") { context in try ElementViewModel(symbol: context.argument("symbol")) }
/// ```
@MainActor
public struct ViewModelRegistry {
    public private(set) var types: [ViewModelType] = []
    private var index: [String: Int] = [:]

    public init() {}

    /// Adds a type; `make` builds a new instance for each `session/open`. A name registered twice
    /// keeps the later registration.
    /// - Parameters:
    ///   - name: what clients open it by (`session/open`'s `type`).
    ///   - make: builds the view model from the `OpenContext` (args, dependencies, session tasks);
    ///     what it throws fails the open with -32018 (an ``OpenError`` says what to tell the client).
    public mutating func register<Model: ViewModel>(
        _ name: String, make: @escaping @MainActor (OpenContext) throws -> Model
    ) {
        let type = ViewModelType(name: name, exposure: Model.exposure, make: make)
        if let existing = index[name] {
            types[existing] = type
        } else {
            index[name] = types.count
            types.append(type)
        }
    }

    public func type(named name: String) -> ViewModelType? {
        index[name].map { types[$0] }
    }

    public var names: [String] { types.map(\.name) }
}
