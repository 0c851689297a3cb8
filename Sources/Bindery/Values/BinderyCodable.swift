/// No longer needed: Bindery codes every `Codable` type by itself, by its `Codable` form, and every
/// other struct by its stored properties.
///
/// Kept so that code written for an earlier Bindery (`struct User: Codable, BinderyCodable`) still
/// compiles, with a warning that says to remove the conformance; it requires nothing (not even
/// `Codable`), so it can no longer fail to synthesize anything.
@available(*, deprecated, message: "no longer needed: Bindery codes every Codable type by itself; remove the BinderyCodable conformance")
public protocol BinderyCodable {}
