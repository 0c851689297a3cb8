/// A string-backed enum a client sets and reads by raw value; the schema lists its cases.
///
/// ```swift
/// enum Rating: String, CaseIterable, BinderyEnum { case notSeen, terrible, good }
/// ```
public protocol BinderyEnum: BinderyValue, CaseIterable, RawRepresentable where RawValue == String {}

extension BinderyEnum {
    public static var valueType: ValueType { .enumeration(allCases.map(\.rawValue)) }
    public var jsonValue: JSONValue { .string(rawValue) }
    public init(jsonValue: JSONValue) throws(ValueError) {
        guard case .string(let raw) = jsonValue else { throw ValueError(expected: Self.valueType, found: jsonValue) }
        guard let value = Self(rawValue: raw) else {
            throw ValueError(expected: Self.valueType.description, found: "\"\(raw)\"")
        }
        self = value
    }
}
