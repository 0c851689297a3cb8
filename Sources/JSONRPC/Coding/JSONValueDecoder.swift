/// Converts a ``JSONValue`` to any `Decodable` type, without going through JSON text.
///
/// Strict about kinds, lenient only where JSON itself is vague:
/// - `.int` decodes as `Double` or `Float`; `.double` decodes as an integer type only when it is integral
///   and in range. Every fixed-width integer type is range-checked.
/// - Strings are never read as numbers, nor numbers as strings; booleans are only `true` and `false`.
/// - A missing member throws `keyNotFound`; optional properties (`decodeIfPresent`) read a missing member
///   and `null` alike as `nil`.
///
/// Errors are the standard `DecodingError`s with `codingPath` set, and their `debugDescription` names the
/// place: `expected a string at "user.firstName", found a number`. For an error reply, use
/// ``Swift/DecodingError/summary``.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Decodes a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder.unbox(value, as: type, at: .root)
    }
}

/// The `Decoder` handed to `init(from:)`: one JSON value and where it sits. Also its single-value container.
final class ValueDecoder: Decoder, SingleValueDecodingContainer {
    private let value: JSONValue
    private let path: CodingPathNode

    init(value: JSONValue, path: CodingPathNode) {
        self.value = value
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Decodes a `T` from `value`, with a decoder of its own unless `T` is a common scalar.
    static func unbox<T: Decodable>(
        _ value: JSONValue, as type: T.Type, at path: @autoclosure () -> CodingPathNode
    ) throws -> T {
        // Arrays and dictionaries ask for their elements generically; answering the common scalars
        // here saves a decoder per element.
        if T.self == String.self { return try Unbox.string(value, at: path()) as! T }
        if T.self == Int.self { return try Unbox.integer(value, as: Int.self, at: path()) as! T }
        if T.self == Double.self { return try Unbox.double(value, at: path()) as! T }
        if T.self == Bool.self { return try Unbox.bool(value, at: path()) as! T }
        if let custom = T.self as? any CustomJSONValueCoding.Type {
            do {
                return try custom.fromCustomJSONValue(value) as! T
            } catch let error as DecodingError {
                throw error
            } catch {
                throw DecodingError.dataCorrupted(.init(codingPath: path().keys, debugDescription: "\(error)"))
            }
        }
        return try T(from: ValueDecoder(value: value, path: path()))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let object = try Unbox.object(value, at: path)
        return KeyedDecodingContainer(ObjectDecodingContainer<Key>(object: object, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        ArrayDecodingContainer(elements: try Unbox.array(value, at: path), path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try Unbox.bool(value, at: path) }
    func decode(_ type: String.Type) throws -> String { try Unbox.string(value, at: path) }
    func decode(_ type: Double.Type) throws -> Double { try Unbox.double(value, at: path) }
    func decode(_ type: Float.Type) throws -> Float { try Unbox.float(value, at: path) }
    func decode(_ type: Int.Type) throws -> Int { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try Unbox.integer(value, as: type, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try Unbox.integer(value, as: type, at: path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.unbox(value, as: type, at: path) }
}

/// Reading Swift scalars and containers out of JSON values, shared by the decoding containers.
///
/// Paths are taken lazily: building one costs an allocation, and it is only needed for an error.
enum Unbox {
    static func bool(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Bool {
        if case .bool(let bool) = value { return bool }
        throw mismatch(Bool.self, expected: "a boolean", found: value, at: path())
    }

    static func string(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> String {
        if case .string(let string) = value { return string }
        throw mismatch(String.self, expected: "a string", found: value, at: path())
    }

    static func double(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Double {
        switch value {
        case .double(let double): return double
        case .int(let int): return Double(int)
        default: throw mismatch(Double.self, expected: "a number", found: value, at: path())
        }
    }

    static func float(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> Float {
        switch value {
        case .double(let double):
            let float = Float(double)
            if float.isFinite || !double.isFinite { return float }
            throw corrupted("\(double)", "does not fit in Float", at: path())
        case .int(let int):
            return Float(int)
        default:
            throw mismatch(Float.self, expected: "a number", found: value, at: path())
        }
    }

    static func integer<T: FixedWidthInteger>(
        _ value: JSONValue, as type: T.Type, at path: @autoclosure () -> CodingPathNode
    ) throws -> T {
        switch value {
        case .int(let int):
            if let integer = T(exactly: int) { return integer }
            throw corrupted("\(int)", "does not fit in \(T.self)", at: path())
        case .double(let double):
            if let integer = T(exactly: double) { return integer }
            let problem = isIntegral(double) ? "does not fit in \(T.self)" : "is not an integer"
            throw corrupted("\(double)", problem, at: path())
        default:
            throw mismatch(T.self, expected: "an integer", found: value, at: path())
        }
    }

    static func object(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> JSONObject {
        if case .object(let object) = value { return object }
        throw mismatch([String: Any].self, expected: "an object", found: value, at: path())
    }

    static func array(_ value: JSONValue, at path: @autoclosure () -> CodingPathNode) throws -> [JSONValue] {
        if case .array(let array) = value { return array }
        throw mismatch([Any].self, expected: "an array", found: value, at: path())
    }

    /// `typeMismatch`, or `valueNotFound` when the value is `null`, as Foundation's decoders report it.
    private static func mismatch(
        _ type: Any.Type, expected: String, found value: JSONValue, at path: CodingPathNode
    ) -> DecodingError {
        let description = "expected \(expected)\(locationPhrase(path)), found \(describeKind(of: value))"
        let context = DecodingError.Context(codingPath: path.keys, debugDescription: description)
        if case .null = value { return .valueNotFound(type, context) }
        return .typeMismatch(type, context)
    }

    /// `dataCorrupted` for a value of the right kind that the Swift type still cannot hold.
    private static func corrupted(
        _ value: String, _ problem: String, at path: CodingPathNode
    ) -> DecodingError {
        let description = "\(value)\(locationPhrase(path)) \(problem)"
        return .dataCorrupted(.init(codingPath: path.keys, debugDescription: description))
    }

    /// Whether `value` is a whole number. Not `rounded(.towardZero)`: that calls libm's `trunc`, which
    /// executables linking neither Foundation nor Glibc fail to resolve. From 2^52 up every double is whole.
    private static func isIntegral(_ value: Double) -> Bool {
        value.isFinite && (value.magnitude >= 0x1p52 || Double(Int64(value)) == value)
    }

    /// The kind of a value as a reader of the JSON sees it: JSON does not tell integers from other numbers.
    private static func describeKind(of value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

/// Reads the members of an object by key.
struct ObjectDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let path: CodingPathNode
    /// Members by name, for large objects only (typically dictionaries), where scanning on every lookup
    /// would make decoding quadratic. Small objects are scanned, which beats hashing.
    private let index: [String: JSONValue]?

    init(object: JSONObject, path: CodingPathNode) {
        self.object = object
        self.path = path
        // Later duplicates win, as in `JSONObject`'s own lookup.
        index = object.count <= 16 ? nil : Dictionary(object.members.map { ($0.key, $0.value) }) { $1 }
    }

    var codingPath: [any CodingKey] { path.keys }
    var allKeys: [Key] { object.members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(named: key.stringValue) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try require(key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try Unbox.bool(require(key), at: path.appending(key))
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try Unbox.string(require(key), at: path.appending(key))
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try Unbox.double(require(key), at: path.appending(key))
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Unbox.float(require(key), at: path.appending(key))
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try ValueDecoder.unbox(require(key), as: type, at: path.appending(key))
    }

    /// One lookup instead of the default's three (`contains`, `decodeNil`, `decode`).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(named: key.stringValue) else { return nil }
        if case .null = value { return nil }
        return try ValueDecoder.unbox(value, as: type, at: path.appending(key))
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let nestedPath = path.appending(key)
        let nested = try Unbox.object(require(key), at: nestedPath)
        return KeyedDecodingContainer(ObjectDecodingContainer<NestedKey>(object: nested, path: nestedPath))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nestedPath = path.appending(key)
        let nested = try Unbox.array(require(key), at: nestedPath)
        return ArrayDecodingContainer(elements: nested, path: nestedPath)
    }

    func superDecoder() throws -> any Decoder { superDecoder(named: StringCodingKey("super")) }

    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(named: key) }

    /// A missing member reads as `null`, as in Foundation, leaving the superclass to decide if that is fine.
    private func superDecoder(named key: some CodingKey) -> any Decoder {
        ValueDecoder(value: member(named: key.stringValue) ?? .null, path: path.appending(key))
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type, _ key: Key) throws -> T {
        try Unbox.integer(require(key), as: type, at: path.appending(key))
    }

    private func member(named name: String) -> JSONValue? {
        if let index { return index[name] }
        return object[name]
    }

    private func require(_ key: Key) throws -> JSONValue {
        if let value = member(named: key.stringValue) { return value }
        let description = "missing member \"\(key.stringValue)\"\(locationPhrase(path))"
        throw DecodingError.keyNotFound(key, .init(codingPath: path.keys, debugDescription: description))
    }
}

/// Reads the elements of an array in order. A failed decode does not move past the element.
struct ArrayDecodingContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let path: CodingPathNode
    private(set) var currentIndex = 0

    init(elements: [JSONValue], path: CodingPathNode) {
        self.elements = elements
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw endOfArray(Any?.self) }
        guard case .null = elements[currentIndex] else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try Unbox.bool($0, at: $1()) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try Unbox.string($0, at: $1()) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try Unbox.double($0, at: $1()) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try Unbox.float($0, at: $1()) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next { try ValueDecoder.unbox($0, as: type, at: $1()) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next { value, path in
            let nestedPath = path()
            let object = try Unbox.object(value, at: nestedPath)
            return KeyedDecodingContainer(
                ObjectDecodingContainer<NestedKey>(object: object, path: nestedPath))
        }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { value, path in
            let nestedPath = path()
            return ArrayDecodingContainer(elements: try Unbox.array(value, at: nestedPath), path: nestedPath)
        }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next { ValueDecoder(value: $0, path: $1()) }
    }

    private mutating func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        try next { try Unbox.integer($0, as: type, at: $1()) }
    }

    /// Reads the current element and moves past it only if `read` succeeds; `read` gets the element's
    /// path as a function, so that it is built only for an error.
    private mutating func next<T>(_ read: (JSONValue, () -> CodingPathNode) throws -> T) throws -> T {
        guard !isAtEnd else { throw endOfArray(T.self) }
        let index = currentIndex
        let path = path
        let result = try read(elements[index]) { path.appending(index: index) }
        currentIndex += 1
        return result
    }

    private func endOfArray(_ type: Any.Type) -> DecodingError {
        let elementPath = path.appending(index: currentIndex)
        let description = "expected a value\(locationPhrase(elementPath)), found the end of the array"
        return .valueNotFound(type, .init(codingPath: elementPath.keys, debugDescription: description))
    }
}
