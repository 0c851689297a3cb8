/// A `Codable` type sent as a JSON object: declare the conformance and the coding is derived.
///
/// ```swift
/// struct User: Codable, BinderyCodable { var firstName: String; var authToken: String }
/// ```
/// Optional members that are nil are left out of the object.
public protocol BinderyCodable: BinderyValue, Codable {}

extension BinderyCodable {
    /// An object with the members the type's `init(from:)` decodes (see `SchemaProbe`).
    public static var valueType: ValueType { .object(_typeName(Self.self, qualified: false), SchemaProbe.members(of: Self.self)) }

    public var jsonValue: JSONValue {
        do {
            return try JSONValueEncoder().encode(self)
        } catch {
            // Only a value with no JSON form fails here (a non-finite float, or a hand-written
            // `encode(to:)` that misuses its containers); null is the honest rendering.
            return .null
        }
    }

    public init(jsonValue: JSONValue) throws(ValueError) {
        do {
            self = try JSONValueDecoder().decode(Self.self, from: jsonValue)
        } catch {
            let reason = (error as? DecodingError)?.summary ?? "\(error)"
            guard case .object = jsonValue else { throw ValueError(expected: "object", found: jsonValue.typeName, reason: reason) }
            throw ValueError(expected: "object", found: "an object that does not fit", reason: reason)
        }
    }
}
