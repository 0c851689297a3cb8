/// A type with a JSON form of its own, which ``JSONValueEncoder`` and ``JSONValueDecoder`` use in
/// place of its `Codable` form wherever they meet it, nested in any struct, array or dictionary.
///
/// For types whose `Codable` form is not what a JSON reader expects: Foundation's `Date` encodes
/// as seconds since 2001 and `Decimal` as its internal storage; Bindery gives them ISO 8601 and an
/// exact decimal string. JSONRPC knows no such type; the module that does conforms them.
public protocol CustomJSONValueCoding {
    /// This value's JSON form.
    var customJSONValue: JSONValue { get throws }
    /// Reads a value from its JSON form; throws (any error) when `json` is not one.
    static func fromCustomJSONValue(_ json: JSONValue) throws -> Self
}
