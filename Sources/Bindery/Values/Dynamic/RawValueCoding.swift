/// Structs that are `RawRepresentable` (an `OptionSet`, a tagged identifier): their raw value, read
/// back with `init(rawValue:)` — whether or not the struct is `Codable` (a `Codable` one encodes
/// the same way). A raw value `init(rawValue:)` refuses is a wrong value, named as such.
@MainActor
enum RawValueCoding {
    static func describe(_ type: any RawRepresentable.Type, into coder: DynamicCoder) {
        open(type, into: coder)
    }

    private static func open<T: RawRepresentable>(_ type: T.Type, into coder: DynamicCoder) {
        let raw = DynamicCoders.coder(for: T.RawValue.self)
        coder.problem = raw.problem
        coder.valueType = raw.valueType
        coder.encodeBody = { value in raw.encode((value as! T).rawValue) }
        guard raw.canDecode else { return }
        let typeName = coder.typeName
        coder.decodeBody = { json throws(ValueError) in
            guard let value = T(rawValue: try raw.decode(json) as! T.RawValue) else {
                throw ValueError(expected: raw.valueType.description, found: JSONWriter.string(json),
                                 reason: "not a raw value \(typeName)(rawValue:) accepts")
            }
            return value
        }
    }
}
