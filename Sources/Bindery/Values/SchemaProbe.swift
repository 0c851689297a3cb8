/// Finds the shape of a `Decodable` type's `Codable` form without an instance: its `init(from:)`
/// is run against a decoder that answers every request with a placeholder and writes down what was
/// asked — the container (keyed: an object; unkeyed: an array; single value: that value), each key,
/// its type, and whether it was optional (`decodeIfPresent`).
///
/// A member's type is described by Bindery's own coder for it (`DynamicCoders`: an enum lists its
/// cases, an array its elements, a nested struct its members), and its placeholder is made by
/// decoding a sample of that description — so an enum without a `""` case, a list of structs, a
/// `RawRepresentable` are all found, and the members after them too. A type whose `init(from:)`
/// still refuses every placeholder before its members were all seen is described as `any` (see
/// ``shape(of:typeName:storedPropertyNames:)``): a schema never lists part of an object as the whole.
@MainActor
enum SchemaProbe {
    /// The types being probed, innermost last: a type that contains itself is described inside
    /// itself by name (the coder being made), not probed for ever.
    private static var inProgress: [ObjectIdentifier] = []

    /// What `T`'s `init(from:)` decodes: an object of its members, in the order it asks for them; an
    /// array of what it decodes one after another (Foundation's `NSRange` is `[location, length]`);
    /// or the one value it decodes. `any` when the probe cannot tell: the initializer threw before
    /// asking for every stored property (`storedPropertyNames`, when known, are what a synthesized
    /// `Codable` asks for), or asked for nothing at all.
    static func shape<T: Decodable>(of type: T.Type, typeName: String,
                                    storedPropertyNames: @autoclosure () -> [String]?) -> ValueType {
        let id = ObjectIdentifier(T.self)
        guard !inProgress.contains(id) else { return .object(typeName, []) }
        inProgress.append(id)
        defer { inProgress.removeLast() }
        let recorder = Recorder()
        let threw = (try? T(from: ProbeDecoder(recorder: recorder))) == nil
        // (The names are read only then: resolving a type's fields costs a look-up of each one's type.)
        if threw, recorder.container == .keyed, let storedPropertyNames = storedPropertyNames() {
            // Synthesized (or key-for-property) forms: every stored property seen means the whole.
            let seen = Set(recorder.members.map(\.name))
            if !storedPropertyNames.allSatisfy(seen.contains) { return .any }
        } else if threw, recorder.container != .keyed {
            return .any
        }
        return recorder.shape(typeName: typeName)
    }

    /// A placeholder of `T`, and how Bindery describes `T`, for a probed member.
    static func placeholder<T: Decodable>(_ type: T.Type) throws -> (T, ValueType) {
        // BinderyValue first: most members are one (String, Int, Bool, Double), and a cast that
        // fails searches every conformance record of the binary (about 25,000 instructions in a
        // static daemon: two failed casts per member were a sixth of the start-up's work).
        if let binderyType = ConformanceIndex.cast(T.self, to: (any BinderyValue.Type).self) {
            let valueType = binderyType.valueType
            if let value = placeholder(of: valueType) as? T { return (value, valueType) }
            if let value = try? (binderyType as any BinderyValue.Type).init(jsonValue: sample(of: valueType)) as? T {
                return (value, valueType)
            }
        }
        let coder = DynamicCoders.coder(for: T.self)  // numbers included (the coder asks the index first)
        if case .integer = coder.valueType, let integer = T.self as? any FixedWidthInteger.Type, let value = integer.init(0) as? T {
            return (value, .integer)
        }
        if case .number = coder.valueType, let number = T.self as? any BinaryFloatingPoint.Type, let value = number.init(0) as? T {
            return (value, .number)
        }
        let valueType = coder.valueType
        if coder.canDecode, let value = try? coder.decode(sample(of: valueType)) as? T { return (value, valueType) }
        // The sample did not fit (a type that validates, or one being described right now): a
        // value made by probing it in turn serves as the placeholder; the description stays Bindery's.
        guard !inProgress.contains(ObjectIdentifier(T.self)) else {
            throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "probe: recursive"))
        }
        inProgress.append(ObjectIdentifier(T.self))
        defer { inProgress.removeLast() }
        return (try T(from: ProbeDecoder(recorder: Recorder())), valueType)
    }

    /// How Bindery describes `T`, for a member decoded with `decodeIfPresent` (no value needed).
    static func description<T: Decodable>(of type: T.Type) -> ValueType {
        if let binderyType = ConformanceIndex.cast(T.self, to: (any BinderyValue.Type).self) {
            return binderyType.valueType
        }
        return DynamicCoders.coder(for: T.self).valueType
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

    /// What one `init(from:)` asked for. A nested container's members are read when the shape is:
    /// they are asked for after the container is handed out.
    final class Recorder {
        enum Container { case none, keyed, unkeyed, single }
        private(set) var container = Container.none
        private var entries: [(name: String, type: () -> ValueType, optional: Bool)] = []
        private var elements: [ValueType] = []
        private var single: ValueType?
        var optionalKeys: Set<String> = []

        func use(_ kind: Container) {
            if container == .none { container = kind }
        }

        func record(_ name: String, _ type: @escaping () -> ValueType, optional: Bool) {
            guard !entries.contains(where: { $0.name == name }) else { return }
            entries.append((name, type, optional))
        }

        func recordElement(_ type: ValueType) { elements.append(type) }
        func recordSingle(_ type: ValueType) { if single == nil { single = type } }

        var members: [ValueType.Member] {
            entries.map { ValueType.Member(name: $0.name, type: $0.type(), isOptional: $0.optional) }
        }

        func shape(typeName: String) -> ValueType {
            switch container {
            case .none, .keyed: return .object(typeName, members)
            case .single: return single ?? .any
            case .unkeyed:
                // Elements of one type: an array of it; of several (a tuple-like form): any element.
                guard let first = elements.first else { return .array(.any) }
                return .array(elements.allSatisfy { $0 == first } ? first : .any)
            }
        }
    }
}

private struct ProbeDecoder: Decoder {
    let recorder: SchemaProbe.Recorder
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        recorder.use(.keyed)
        return KeyedDecodingContainer(ProbeKeyedContainer<Key>(recorder: recorder))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        recorder.use(.unkeyed)
        return ProbeUnkeyedContainer(recorder: recorder)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        recorder.use(.single)
        return ProbeSingleValue(recorder: recorder)
    }
}

/// The probe runs where schemas are made, on the main actor; Codable's protocols do not say so.
/// (The value is handed out of `assumeIsolated` by hand: a placeholder need not be `Sendable`, and
/// it never leaves the main thread.)
private func onMain<T>(_ body: @MainActor () throws -> T) throws -> T {
    nonisolated(unsafe) var result: Result<T, any Error>?
    MainActor.assumeIsolated {
        result = Result { try body() }
    }
    return try result!.get()
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
        let (value, valueType) = try onMain { try SchemaProbe.placeholder(T.self) }
        recorder.record(key.stringValue, { valueType }, optional: recorder.optionalKeys.contains(key.stringValue))
        return value
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        let valueType = try onMain { SchemaProbe.description(of: T.self) }
        recorder.record(key.stringValue, { valueType }, optional: true)
        return nil
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        let nested = SchemaProbe.Recorder()
        nested.use(.keyed)
        recorder.record(key.stringValue, { nested.shape(typeName: key.stringValue) }, optional: recorder.optionalKeys.contains(key.stringValue))
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(recorder: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = SchemaProbe.Recorder()
        nested.use(.unkeyed)
        recorder.record(key.stringValue, { nested.shape(typeName: key.stringValue) }, optional: recorder.optionalKeys.contains(key.stringValue))
        return ProbeUnkeyedContainer(recorder: nested)
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder(recorder: recorder) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(recorder: recorder) }
}

/// An array with one element, of whatever is asked for (a loop over a list stops after it), and
/// as many more as a fixed form asks for regardless (`NSRange`'s two numbers).
private struct ProbeUnkeyedContainer: UnkeyedDecodingContainer {
    let recorder: SchemaProbe.Recorder
    var codingPath: [any CodingKey] = []
    var count: Int? { nil }
    var isAtEnd: Bool { currentIndex >= 1 }
    var currentIndex = 0

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, valueType) = try onMain { try SchemaProbe.placeholder(T.self) }
        recorder.recordElement(valueType)
        currentIndex += 1
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = SchemaProbe.Recorder()
        nested.use(.keyed)
        currentIndex += 1
        defer { recorder.recordElement(.any) }
        return KeyedDecodingContainer(ProbeKeyedContainer<NestedKey>(recorder: nested))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        currentIndex += 1
        recorder.recordElement(.any)
        return ProbeUnkeyedContainer(recorder: SchemaProbe.Recorder())
    }

    mutating func superDecoder() throws -> any Decoder {
        currentIndex += 1
        recorder.recordElement(.any)
        return ProbeDecoder(recorder: SchemaProbe.Recorder())
    }
}

/// A single value: the placeholder of whatever is asked for, and its description is the shape.
private struct ProbeSingleValue: SingleValueDecodingContainer {
    let recorder: SchemaProbe.Recorder
    var codingPath: [any CodingKey] = []
    func decodeNil() -> Bool { false }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, valueType) = try onMain { try SchemaProbe.placeholder(T.self) }
        recorder.recordSingle(valueType)
        return value
    }
}
