/// A field or output with its Swift types erased: what sessions and the schema work with.
///
/// `read` and `write` take the model as `AnyObject`; they were built for one model class and are
/// only ever called with instances of it.
///
/// The public initializers that build it are `@inlinable`: inlined where an exposure is declared,
/// the optimizer sees the key path literal and turns `model[keyPath: \.email]` inside these
/// closures into a plain property access — a key path projected at run time costs several
/// thousand instructions per read or write.
@MainActor @usableFromInline
struct ExposedProperty {
    let name: String
    let label: String
    let valueType: ValueType
    let read: @MainActor (AnyObject) -> JSONValue
    /// Decodes and stores a value. `nil` for read-only outputs.
    let write: (@MainActor (AnyObject, JSONValue) throws(ValueError) -> Void)?
    /// The values of a given type this member holds (itself, or inside it): what a command argument
    /// of a type that cannot be decoded is matched against. Nil: none worth looking in.
    var values: (@MainActor (AnyObject, Any.Type) -> [Any])?
    /// The child view models this member holds, for a member that may hold some: their fields go
    /// into the parent's snapshot (see `ViewModelType.fieldValues(of:)`).
    var children: (@MainActor (AnyObject) -> [(model: AnyObject, type: ViewModelType)])?
    /// Why Bindery cannot serve this member (its type has no JSON form); reported at registration.
    var problem: String?

    var isWritable: Bool { write != nil }

    @usableFromInline
    init(name: String, label: String?, valueType: ValueType, read: @escaping @MainActor (AnyObject) -> JSONValue,
         write: (@MainActor (AnyObject, JSONValue) throws(ValueError) -> Void)?) {
        self.name = name
        self.label = label ?? defaultLabel(for: name)
        self.valueType = valueType
        self.read = read
        self.write = write
    }
}

/// A writable property: a client may set it with `setField`, and is told when the model changes it.
///
/// ```swift
/// Field("email", \.email)
/// Field("rating", \.rating, label: "Your rating")
/// ```
@MainActor
public struct Field<Model: AnyObject> {
    @usableFromInline let property: ExposedProperty

    /// - Parameters:
    ///   - name: the member's name on the wire (`setField`'s `field`, a key of the state).
    ///   - keyPath: the property it reads and writes; any ``BinderyValue`` type.
    ///   - label: what a form shows; derived from `name` when nil (`approxSalary` -> "Approx salary").
    @inlinable
    public init<Value: BinderyValue>(
        _ name: String, _ keyPath: ReferenceWritableKeyPath<Model, Value>, label: String? = nil
    ) {
        // One closure captures the key path, so that the optimizer can fold it into the property's
        // own accessors: a key path captured by two closures is applied at run time (a read through
        // it costs about 700 instructions more, a write about 2,000).
        let access = { (model: AnyObject, json: JSONValue?) throws(ValueError) -> JSONValue in
            let model = unsafeDowncast(model, to: Model.self)
            guard let json else { return model[keyPath: keyPath].jsonValue }
            model[keyPath: keyPath] = try Value(jsonValue: json)
            return .null
        }
        property = ExposedProperty(
            name: name,
            label: label,
            valueType: Value.valueType,
            read: { model in (try? access(model, nil)) ?? .null },
            write: { (model, json) throws(ValueError) in _ = try access(model, json) }
        )
    }
}

/// A read-only property, stored or computed: clients read it and are told when it changes.
///
/// ```swift
/// Output("isValid", \.isValid)
/// ```
@MainActor
public struct Output<Model: AnyObject> {
    @usableFromInline let property: ExposedProperty

    /// - Parameters:
    ///   - name: the member's name on the wire (a key of the state).
    ///   - keyPath: the property it reads, stored or computed; any ``BinderyValue`` type.
    ///   - label: what a form shows; derived from `name` when nil.
    @inlinable
    public init<Value: BinderyValue>(_ name: String, _ keyPath: KeyPath<Model, Value>, label: String? = nil) {
        property = ExposedProperty(
            name: name,
            label: label,
            valueType: Value.valueType,
            read: { model in unsafeDowncast(model, to: Model.self)[keyPath: keyPath].jsonValue },
            write: nil
        )
    }
}
