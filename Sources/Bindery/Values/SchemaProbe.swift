/// Finds the members of a `Codable` struct without an instance: its `init(from:)` is run against a
/// decoder that answers every request with a placeholder and writes down what was asked — each key,
/// its type, and whether it was optional (`decodeIfPresent`). That is how ``BinderyCodable`` types
/// describe their members in the schema.
///
/// A member whose type is a ``BinderyValue`` is described by its own `valueType` (an enum lists its
/// cases, a nested struct its members); any other `Decodable` is probed in turn.
enum SchemaProbe {
    /// The types being probed by this thread (or task), innermost last: a type that contains
    /// itself is described inside itself by name only (an object with no members listed), not
    /// probed for ever. Task-local, not one list for the process: two threads probing the same
    /// type at once (tests run in parallel) must not see each other's probes as recursion.
    @TaskLocal private static var inProgress: [ObjectIdentifier] = []

    /// The members `T` decodes, in the order its `init(from:)` asks for them.
    static func members<T: Decodable>(of type: T.Type) -> [ValueType.Member] {
        let id = ObjectIdentifier(T.self)
        guard !inProgress.contains(id) else { return [] }
        return $inProgress.withValue(inProgress + [id]) {
            let recorder = Recorder()
            _ = try? T(from: ProbeDecoder(recorder: recorder))
            return recorder.members
        }
    }

    /// A placeholder of `T`, and its type, for a probed member.
    static func placeholder<T: Decodable>(_ type: T.Type, recorder: Recorder?) throws -> (T, ValueType) {
        // BinderyValue first: most members are one (String, Int, Bool, Double), and a cast that
        // fails searches every conformance record of the binary (about 25,000 instructions in a
        // static daemon: two failed casts per member were a sixth of the start-up's work).
        if let binderyType = T.self as? any BinderyValue.Type {
            let valueType = binderyType.valueType
            if let value = placeholder(of: valueType) as? T { return (value, valueType) }
            if let value = try? (binderyType as any BinderyValue.Type).init(jsonValue: sample(of: valueType)) as? T {
                return (value, valueType)
            }
        }
        if let integer = T.self as? any FixedWidthInteger.Type, let value = integer.init(0) as? T {
            return (value, .integer)
        }
        if let number = T.self as? any BinaryFloatingPoint.Type, let value = number.init(0) as? T {
            return (value, .number)
        }
        let nested = Recorder()
        let value = try T(from: ProbeDecoder(recorder: nested))
        return (value, .object(_typeName(T.self, qualified: false), nested.members))
    }

    /// A Swift value of the standard types, when `valueType` is one.
    private static func placeholder(of valueType: ValueType) -> Any? {
        switch valueType {
        case .string: ""
        case .bool: false
        case .integer: 0
        case .number: 0.0
        default: nil
        }
    }

    /// A JSON value that `valueType` accepts: the first case of an enum, an empty array, null.
    static func sample(of valueType: ValueType) -> JSONValue {
        switch valueType {
        case .string: ""
        case .bool: false
        case .integer: 0
        case .number: 0.0
        case .enumeration(let cases): .string(cases.first ?? "")
        case .array, .set: []
        case .dictionary: .object(JSONObject())
        case .object(_, let members):
            .object(JSONObject(members.filter { !$0.isOptional }.map { (key: $0.name, value: sample(of: $0.type)) }))
        case .union(_, let cases):
            .object(JSONObject([(key: "case", value: .string(cases.first?.name ?? ""))]
                + (cases.first?.members ?? []).filter { !$0.isOptional }.map { (key: $0.name, value: sample(of: $0.type)) }))
        case .optional, .any, .viewModel: .null
        case .formatted(let base, let format): FormatSamples.sample[format] ?? sample(of: base)
        }
    }

    final class Recorder {
        var members: [ValueType.Member] = []
        var optionalKeys: Set<String> = []
        func record(_ name: String, _ type: ValueType, optional: Bool) {
            guard !members.contains(where: { $0.name == name }) else { return }
            members.append(ValueType.Member(name: name, type: type, isOptional: optional))
        }
    }
}

private struct ProbeDecoder: Decoder {
    let recorder: SchemaProbe.Recorder
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeKeyedContainer<Key>(recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { EmptyUnkeyedContainer() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { ProbeSingleValue() }
}

private struct ProbeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: SchemaProbe.Recorder
    var codingPath: [any CodingKey] = []
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { true }

    /// The standard library's `decodeIfPresent` asks this before it decodes: the key is optional.
    func decodeNil(forKey key: Key) throws -> Bool {
        recorder.optionalKeys.insert(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, valueType) = try SchemaProbe.placeholder(T.self, recorder: recorder)
        recorder.record(key.stringValue, valueType, optional: recorder.optionalKeys.contains(key.stringValue))
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let (_, valueType) = try SchemaProbe.placeholder(T.self, recorder: recorder)
        recorder.record(key.stringValue, valueType, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        let nested = SchemaProbe.Recorder()
        defer { recorder.record(key.stringValue, .object(key.stringValue, nested.members), optional: false) }
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(recorder: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { EmptyUnkeyedContainer() }
    func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(recorder: recorder) }
}

/// An array with nothing in it: what a probed array member decodes as.
private struct EmptyUnkeyedContainer: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] = []
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { true }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: codingPath, debugDescription: "probe: empty"))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "probe: empty"))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() throws -> any Decoder {
        throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "probe: empty"))
    }
}

/// A single value: the placeholder of whatever is asked for.
private struct ProbeSingleValue: SingleValueDecodingContainer {
    var codingPath: [any CodingKey] = []
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try SchemaProbe.placeholder(T.self, recorder: nil).0
    }
}
