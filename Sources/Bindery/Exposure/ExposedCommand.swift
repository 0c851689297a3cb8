/// A command with its Swift types erased: what sessions and the schema work with.
@MainActor
struct ExposedCommand {
    enum Body {
        /// Returns the result's JSON, or nil for a command that returns nothing.
        case sync(@MainActor (AnyObject, JSONValue?) throws -> JSONValue?)
        case async(@MainActor (AnyObject, JSONValue?) async throws -> JSONValue?)
    }

    /// The body as the declaration wrote it, for one model class.
    enum TypedBody<Model: AnyObject> {
        case sync(@MainActor (Model, JSONValue?) throws -> JSONValue?)
        case async(@MainActor (Model, JSONValue?) async throws -> JSONValue?)

        var erased: Body {
            switch self {
            case .sync(let body): .sync { model, args in try body(unsafeDowncast(model, to: Model.self), args) }
            case .async(let body): .async { model, args in try await body(unsafeDowncast(model, to: Model.self), args) }
            }
        }
    }

    let name: String
    let label: String
    /// The type of `args`, or nil for a command that takes none.
    let argumentsType: ValueType?
    /// The type of its result, or nil for a command that returns nothing (`result: null`).
    let resultType: ValueType?
    /// The enabled condition; nil means always enabled.
    let isEnabled: (@MainActor (AnyObject) -> Bool)?
    /// Whether undo can undo it (its effect on the fields).
    let isUndoable: Bool
    let body: Body
    /// Why Bindery cannot serve this command (an argument or result type with no JSON form).
    var problem: String?

    var isAsync: Bool {
        if case .async = body { return true }
        return false
    }
}
