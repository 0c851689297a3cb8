/// How Bindery codes a Swift type that is not a ``BinderyValue``: found out at run time, once per
/// type, from what the type is — `Codable`, an enum (with or without payloads, raw values or none),
/// a struct, a set, a dictionary, any sequence, an `Error`, an optional of any of them.
///
/// This is what lets an exposure name a member of any type as it names a `String`
/// (`Output("state", \.state)`), with nothing to declare: see ``DynamicCoders/coder(for:)`` for the
/// rules, and protocol.md ("Value types") for the wire forms. A type Bindery cannot show (a class
/// that is not a view model, a function) gets a coder with a ``problem``, which registration reports.
///
/// Main actor only: coders are made while exposures are built and used while members are read.
@MainActor
final class DynamicCoder {
    /// The Swift type's name, for schemas and messages.
    let typeName: String
    /// How the schema describes it; set once the type has been looked at.
    var valueType: ValueType
    var encodeBody: (Any) -> JSONValue = { _ in .null }
    /// The same encoder typed, `(T) -> JSONValue` for the coder's own type T, where one is kept
    /// (arrays): a member reads its value as T and calls it without boxing the value in an `Any`
    /// and casting it back (a dynamic cast per read). See ``encoder(for:)``.
    var typedEncodeBody: Any?
    /// Nil when JSON cannot be turned into this type (no `Decodable`, no cases to choose from): a
    /// command argument of such a type is matched against the values the model holds instead.
    var decodeBody: ((JSONValue) throws(ValueError) -> Any)?
    /// Why Bindery cannot show this type; nil when it can.
    var problem: String?
    /// For a collection or an optional: lists the values inside, of ``elementType`` (command
    /// arguments are matched against them).
    var elementType: Any.Type?
    var elements: ((Any) -> [Any])?
    /// For a child view model: its type (see `ChildSessions`).
    var childType: ViewModelType?

    init(typeName: String) {
        self.typeName = typeName
        valueType = .object(typeName, [])  // what a type that contains itself sees of itself
    }

    func encode(_ value: Any) -> JSONValue { encodeBody(value) }

    /// An encoder for values of `type`, this coder's type: the typed one when there is one (looked
    /// up once, here), else `encode`.
    func encoder<T>(for type: T.Type) -> (T) -> JSONValue {
        if let typed = typedEncodeBody as? (T) -> JSONValue { return typed }
        return { self.encode($0) }
    }

    var canDecode: Bool { decodeBody != nil }

    func decode(_ json: JSONValue) throws(ValueError) -> Any {
        guard let decodeBody else {
            throw ValueError(expected: valueType.description, found: json.typeName,
                             reason: "\(typeName) cannot be made from JSON")
        }
        return try decodeBody(json)
    }

    /// The child view models inside `value` (itself, an optional's, a list's rows), with their types.
    func childModels(in value: Any) -> [(model: AnyObject, type: ViewModelType)] {
        if let childType { return [(value as AnyObject, childType)] }
        guard let elementType, let elements else { return [] }
        let inner = DynamicCoders.coder(for: elementType)
        return elements(value).flatMap { inner.childModels(in: $0) }
    }

    /// Every value of `type` inside `value` (itself, an optional's, a collection's elements).
    func values(ofType type: Any.Type, in value: Any) -> [Any] {
        if ObjectIdentifier(type) == ObjectIdentifier(Swift.type(of: value)) { return [value] }
        guard let elementType, let elements else { return [] }
        let inner = DynamicCoders.coder(for: elementType)
        return elements(value).flatMap { inner.values(ofType: type, in: $0) }
    }
}
