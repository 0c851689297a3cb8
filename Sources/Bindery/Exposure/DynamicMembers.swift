// Fields, outputs and commands of any type: the declarations for values that are not
// `BinderyValue`s — Foundation's enums, structs that are not `Codable`, enums with payloads, sets,
// dictionaries, errors — coded as `DynamicCoders` finds out at registration. The `BinderyValue`
// declarations (in ExposedProperty.swift and Command.swift) are preferred wherever they apply: more
// specific, they are what Swift picks, and they read and write without a dynamic cast.

extension Field {
    /// A writable property of any type Bindery can show (see protocol.md, "Value types").
    ///
    /// ```swift
    /// Field("due", \.due)            // a Date: ISO 8601
    /// Field("filter", \.filter)      // an enum without raw values: one of its case names
    /// Field("selected", \.selected)  // a struct that is not Codable: set to one the model holds
    /// ```
    /// A type that cannot be made from JSON (not `Decodable`) is written by matching: the client
    /// sends a value as it was shown (a row of a list), and the model's own equal value is stored.
    @inlinable
    public init<Value>(_ name: String, _ keyPath: consuming ReferenceWritableKeyPath<Model, Value>, label: String? = nil) {
        property = .dynamicField(name: name, label: label, access: Self.accessor(consume keyPath))
    }

    /// Reads with `access(model, nil)`, writes with `access(model, value)`. Inlined where the
    /// exposure is declared, with the key path in one closure and moved into it (not copied, so
    /// that nothing else holds it across a call): the optimizer folds it into the property's
    /// accessors (see `ExposedProperty`).
    @inlinable
    static func accessor<Value>(_ keyPath: consuming ReferenceWritableKeyPath<Model, Value>)
        -> @MainActor (AnyObject, Value?) -> Value? {
        let keyPath = consume keyPath
        return { model, newValue in
            let model = unsafeDowncast(model, to: Model.self)
            guard let newValue else { return model[keyPath: keyPath] }
            model[keyPath: keyPath] = newValue
            return nil
        }
    }

    /// A `let`, or a property without a setter, cannot be a field.
    @available(*, unavailable, message: "a Field needs a settable property ('var' with a setter); use Output for a read-only one")
    public init<Value>(_ name: String, _ keyPath: KeyPath<Model, Value>, label: String? = nil) {
        fatalError("unavailable")
    }
}

extension Output {
    /// A read-only property, stored or computed, of any type Bindery can show.
    ///
    /// ```swift
    /// Output("state", \.state)   // enum LoadState { case idle, loading, loaded([Film]), failed(String) }
    /// Output("error", \.error)   // any Error?: its message
    /// ```
    @inlinable
    public init<Value>(_ name: String, _ keyPath: consuming KeyPath<Model, Value>, label: String? = nil) {
        property = .dynamicOutput(name: name, label: label, read: Self.reader(consume keyPath))
    }

    /// The key path moved into one closure, as in `Field.accessor`.
    @inlinable
    static func reader<Value>(_ keyPath: consuming KeyPath<Model, Value>) -> @MainActor (AnyObject) -> Value {
        let keyPath = consume keyPath
        return { model in unsafeDowncast(model, to: Model.self)[keyPath: keyPath] }
    }
}

extension ExposedProperty {
    /// A field of a type coded as `DynamicCoders` finds out, read and written through `access`:
    /// `access(model, nil)` reads, `access(model, value)` writes (and returns nil).
    @usableFromInline
    static func dynamicField<Value>(name: String, label: String?,
                                    access: __owned @escaping @MainActor (AnyObject, Value?) -> Value?) -> ExposedProperty {
        let coder = DynamicCoders.coder(for: Value.self)
        let encode = coder.encoder(for: Value.self)
        var exposed = ExposedProperty(
            name: name, label: label, valueType: coder.valueType,
            read: { model in encode(access(model, nil)!) },
            write: { (model, json) throws(ValueError) in
                _ = access(model, try ValueMatching.value(json, as: Value.self, coder))
            }
        )
        exposed.values = { model, type in coder.values(ofType: type, in: access(model, nil)!) }
        exposed.problem = coder.problem
        return exposed
    }

    /// An output of a type coded as `DynamicCoders` finds out, read through `read`. `read` is taken
    /// owned (like `access` above): borrowed, the caller would keep its key path retained across
    /// this call, a second use that stops the optimizer folding the key path into the getter
    /// (measured: about 800 instructions more per read of a `[Movie]`).
    @usableFromInline
    static func dynamicOutput<Value>(name: String, label: String?,
                                     read: __owned @escaping @MainActor (AnyObject) -> Value) -> ExposedProperty {
        let coder = DynamicCoders.coder(for: Value.self)
        let encode = coder.encoder(for: Value.self)
        var exposed = ExposedProperty(name: name, label: label, valueType: coder.valueType,
                                      read: { model in encode(read(model)) }, write: nil)
        exposed.values = { model, type in coder.values(ofType: type, in: read(model)) }
        if coder.valueType.containsViewModel {
            exposed.children = { model in coder.childModels(in: read(model)) }
        }
        exposed.problem = coder.problem
        return exposed
    }
}

/// Turns JSON into a `Value`: decoded when the type can be, else matched against the values of that
/// type the model holds (as the client was shown them).
@MainActor
enum ValueMatching {
    /// The model being written or invoked, and its type, whose members are matched against; set
    /// around writes and invokes (`ViewModelType.matchingValues(of:_:)`).
    static var source: (type: ViewModelType, model: AnyObject)?

    static func value<Value>(_ json: JSONValue, as type: Value.Type, _ coder: DynamicCoder) throws(ValueError) -> Value {
        if coder.canDecode { return try coder.decode(json) as! Value }
        if let optional = Value.self as? any OptionalValue.Type {
            if json == .null { return optional.noneAny as! Value }
            let wrapped = optional.wrappedType
            let inner = DynamicCoders.coder(for: wrapped)
            if let match = try? matching(json, wrapped, inner), let value = optional.wrapAny(match) as? Value { return value }
        }
        return try matching(json, Value.self, coder) as! Value
    }

    private static func matching(_ json: JSONValue, _ type: Any.Type, _ coder: DynamicCoder) throws(ValueError) -> Any {
        // One value may be shown in several members (a list and its filtered view): the same JSON
        // is the same candidate.
        var candidates: [(value: Any, json: JSONValue)] = []
        for value in source.map({ $0.type.values(ofType: type, in: $0.model) }) ?? [] {
            let json = coder.encode(value)
            if !candidates.contains(where: { sameIgnoringOrder($0.json, json) }) { candidates.append((value, json)) }
        }
        if let exact = candidates.first(where: { sameIgnoringOrder($0.json, json) }) { return exact.value }
        // The row changed since the client saw it, or only its `id` was sent: the id still names it.
        if case .object(let object) = json, let id = object["id"] {
            let sameID = candidates.filter { $0.json["id"].map { sameIgnoringOrder($0, id) } ?? false }
            if sameID.count == 1 { return sameID[0].value }
        }
        throw ValueError(expected: coder.valueType.description, found: json.typeName,
                         reason: "\(coder.typeName) is not Decodable, and no \(coder.typeName) the view model holds matches it")
    }

    /// The same JSON value, objects compared as JSON compares them: whatever the order of their
    /// members (a client may send a row back with its members in another order).
    private static func sameIgnoringOrder(_ left: JSONValue, _ right: JSONValue) -> Bool {
        switch (left, right) {
        case (.object(let a), .object(let b)):
            return a.count == b.count && a.members.allSatisfy { member in
                b[member.key].map { sameIgnoringOrder(member.value, $0) } ?? false
            }
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { sameIgnoringOrder($0, $1) }
        default:
            return left.isSameValue(as: right)
        }
    }
}
