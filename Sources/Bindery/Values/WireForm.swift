/// Any value in the form the daemon sends it (protocol.md, "Value types"), whatever its type: what
/// a test writes in a client's place, or compares with what a client was told.
///
/// ```swift
/// WireForm.json(Movie.Rating.excellent)   // "excellent"
/// ```
@MainActor
public enum WireForm {
    public static func json(_ value: Any) -> JSONValue {
        if let value = value as? any BinderyValue { return value.jsonValue }
        return encodeDynamic(value)
    }
}
