/// Structs found at run time: a JSON object of their members. With `Codable`, by their `Codable`
/// form (members as their coding keys say); without, by their stored properties (`Mirror`), nil
/// optionals left out as `Codable` leaves them out. Writable only when `Decodable`; a command
/// argument of a struct that is not is matched against the values the model holds.
@MainActor
enum StructCoding {
    static func describe(_ type: Any.Type, into coder: DynamicCoder, byStoredProperties: Bool = false) {
        let decodable = byStoredProperties ? nil : ConformanceIndex.cast(type, to: (any Decodable.Type).self)
        if let decodable {
            coder.valueType = shape(of: decodable, typeName: coder.typeName,
                                    storedPropertyNames: TypeMetadata.storedProperties(of: type)?.map(\.name))
            coder.decodeBody = CodableCoding.decoder(decodable, expected: coder.valueType)
        } else {
            let properties = TypeMetadata.storedProperties(of: type) ?? []
            coder.valueType = .object(coder.typeName, properties.map { property in
                let inner = DynamicCoders.coder(for: property.type)
                return ValueType.Member(name: property.name, type: inner.valueType, isOptional: inner.valueType.isNullable)
            })
        }
        if !byStoredProperties, let encodable = ConformanceIndex.cast(type, to: (any Encodable.Type).self) {
            coder.encodeBody = CodableCoding.encoder(encodable)
        } else {
            coder.encodeBody = { value in encodeStoredProperties(value) }
        }
    }

    private static func shape(of type: any Decodable.Type, typeName: String,
                              storedPropertyNames: @autoclosure () -> [String]?) -> ValueType {
        opening(type, typeName: typeName, storedPropertyNames: storedPropertyNames)
    }

    private static func opening<T: Decodable>(_ type: T.Type, typeName: String,
                                              storedPropertyNames: () -> [String]?) -> ValueType {
        SchemaProbe.shape(of: T.self, typeName: typeName, storedPropertyNames: storedPropertyNames())
    }

    private static func encodeStoredProperties(_ value: Any) -> JSONValue {
        var object = JSONObject()
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            let json = encodeDynamic(child.value)
            if json == .null, type(of: child.value) is any OptionalValue.Type { continue }
            object.append(label, json)
        }
        return .object(object)
    }
}

/// The `Codable` forms, with Foundation's values in Bindery's forms (see `CustomJSONValueCoding`).
enum CodableCoding {
    static func encoder(_ type: any Encodable.Type) -> (Any) -> JSONValue {
        encoder(opening: type)
    }

    private static func encoder<T: Encodable>(opening: T.Type) -> (Any) -> JSONValue {
        { value in (try? JSONValueEncoder().encode(value as! T)) ?? .null }
    }

    static func decoder(_ type: any Decodable.Type, expected: ValueType) -> (JSONValue) throws(ValueError) -> Any {
        decoder(opening: type, expected: expected)
    }

    private static func decoder<T: Decodable>(opening: T.Type, expected: ValueType) -> (JSONValue) throws(ValueError) -> Any {
        { json throws(ValueError) in
            do {
                return try JSONValueDecoder().decode(T.self, from: json)
            } catch {
                let reason = (error as? DecodingError)?.summary ?? "\(error)"
                throw ValueError(expected: expected.description, found: json.typeName, reason: reason)
            }
        }
    }
}
