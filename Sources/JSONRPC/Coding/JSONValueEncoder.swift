/// Converts any `Encodable` value to a ``JSONValue``, without going through JSON text.
///
/// - Keyed containers become objects whose members keep the order they were encoded in, which for
///   synthesized `Encodable` is declaration order. Encoding a key again replaces its value in place.
/// - `nil` optional properties are left out rather than written as `null`, because synthesized code
///   encodes them with `encodeIfPresent`. A `nil` element of an array is written as `null`.
/// - Integers become `.int` when they fit in `Int`; larger `UInt64` values become `.double`, which
///   can lose precision.
/// - `Float` goes through its shortest decimal form, so `Float(0.1)` becomes `0.1`, not `0.100000001…`.
/// - NaN and the infinities throw `EncodingError.invalidValue`: JSON has no such numbers.
/// - `[String: T]` and `[Int: T]` dictionaries are written with their keys sorted, since a dictionary's
///   own order changes from one run to the next and Bindery's output must be reproducible.
///
/// ```swift
/// struct User: Codable { var name: String; var age: Int? }
/// try JSONValueEncoder().encode(User(name: "Ada", age: nil))  // ["name": "Ada"]
/// ```
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// Encodes `value`; throws `EncodingError.invalidValue` for anything JSON cannot represent.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try ValueEncoder.box(value, at: .root)
    }
}

/// A slot of a value being encoded: finished, or a container that encoding code may still be filling.
enum PendingValue {
    case done(JSONValue)
    case object(PendingObject)
    case array(PendingArray)
    /// Handed out by `superEncoder`; read when the enclosing container is finished.
    case encoder(ValueEncoder)

    func finish() throws -> JSONValue {
        switch self {
        case .done(let value): return value
        case .object(let object): return .object(try object.finish())
        case .array(let array): return .array(try array.finish())
        case .encoder(let encoder): return try encoder.finish()
        }
    }
}

/// The members of an object being encoded, in encoding order.
///
/// Replacing a key needs a lookup per encode; small objects scan, and large ones (dictionaries) get an
/// index so that encoding them stays linear.
final class PendingObject {
    private var members: [(key: String, value: PendingValue)] = []
    private var positions: [String: Int] = [:]
    private static let scanLimit = 16

    subscript(key: String) -> PendingValue? {
        position(of: key).map { members[$0].value }
    }

    func set(_ value: PendingValue, for key: String) {
        if let position = position(of: key) {
            members[position].value = value
            return
        }
        members.append((key: key, value: value))
        guard members.count > Self.scanLimit else { return }
        if positions.isEmpty {
            for (position, member) in members.enumerated() { positions[member.key] = position }
        } else {
            positions[key] = members.count - 1
        }
    }

    func finish() throws -> JSONObject {
        var object = JSONObject(minimumCapacity: members.count)
        for member in members { object.append(member.key, try member.value.finish()) }
        return object
    }

    private func position(of key: String) -> Int? {
        members.count > Self.scanLimit ? positions[key] : members.firstIndex { $0.key == key }
    }
}

/// The elements of an array being encoded.
final class PendingArray {
    private(set) var elements: [PendingValue] = []

    func append(_ element: PendingValue) { elements.append(element) }

    func finish() throws -> [JSONValue] { try elements.map { try $0.finish() } }
}

/// The `Encoder` handed to `encode(to:)`: collects what one value encodes, and is its single-value container.
final class ValueEncoder: Encoder, SingleValueEncodingContainer {
    private let path: CodingPathNode
    private var storage: PendingValue?
    /// Set when `encode(to:)` encodes a second, conflicting value here; thrown from `finish()` because the
    /// container requests themselves cannot throw.
    private var conflict: EncodingError?

    init(path: CodingPathNode) { self.path = path }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes one value on an encoder of its own and returns the finished JSON.
    static func box<T: Encodable>(
        _ value: T, at path: @autoclosure () -> CodingPathNode
    ) throws -> JSONValue {
        // Arrays and dictionaries pass their elements along generically; answering the common scalars
        // here saves an encoder per element.
        if T.self == String.self { return .string(value as! String) }
        if T.self == Int.self { return .int(value as! Int) }
        if T.self == Double.self { return try EncodedScalar.double(value as! Double, at: path()) }
        if T.self == Bool.self { return .bool(value as! Bool) }
        if let dictionary = value as? any SortedKeysEncodable {
            return try dictionary.encodeSorted(at: path())
        }
        if let custom = value as? any CustomJSONValueCoding { return try custom.customJSONValue }
        let encoder = ValueEncoder(path: path())
        try value.encode(to: encoder)
        return try encoder.finish()
    }

    /// What was encoded; an `encode(to:)` that encoded nothing counts as an empty object.
    func finish() throws -> JSONValue {
        if let conflict { throw conflict }
        return try storage?.finish() ?? .object(JSONObject())
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let object: PendingObject
        if case .object(let existing)? = storage {
            object = existing  // Asked again, e.g. by a superclass: continue the same object.
        } else {
            object = PendingObject()
            claim(.object(object), as: "a keyed container")
        }
        return KeyedEncodingContainer(ObjectEncodingContainer<Key>(object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let array: PendingArray
        if case .array(let existing)? = storage {
            array = existing
        } else {
            array = PendingArray()
            claim(.array(array), as: "an unkeyed container")
        }
        return ArrayEncodingContainer(array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() throws { store(.null) }
    func encode(_ value: Bool) throws { store(.bool(value)) }
    func encode(_ value: String) throws { store(.string(value)) }
    func encode(_ value: Double) throws { store(try EncodedScalar.double(value, at: path)) }
    func encode(_ value: Float) throws { store(try EncodedScalar.float(value, at: path)) }
    func encode(_ value: Int) throws { store(.int(value)) }
    func encode(_ value: Int8) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: Int16) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: Int32) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: Int64) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: UInt) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: UInt8) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: UInt16) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: UInt32) throws { store(EncodedScalar.integer(value)) }
    func encode(_ value: UInt64) throws { store(EncodedScalar.integer(value)) }
    func encode<T: Encodable>(_ value: T) throws { store(try Self.box(value, at: path)) }

    private func store(_ value: JSONValue) { claim(.done(value), as: "a value") }

    private func claim(_ value: PendingValue, as what: String) {
        if storage != nil && conflict == nil {
            let description = "\(what)\(locationPhrase(path)) conflicts with a value already encoded there"
            conflict = .invalidValue(what, .init(codingPath: path.keys, debugDescription: description))
        }
        storage = value
    }
}

/// Conversions of Swift scalars to JSON, shared by the encoding containers.
enum EncodedScalar {
    static func integer<T: BinaryInteger>(_ value: T) -> JSONValue {
        if let int = Int(exactly: value) { return .int(int) }
        return .double(Double(value))  // Only `UInt`/`UInt64` values above `Int.max` get here.
    }

    static func double(_ value: Double, at path: @autoclosure () -> CodingPathNode) throws -> JSONValue {
        guard value.isFinite else { throw notANumber(value, at: path()) }
        return .double(value)
    }

    static func float(_ value: Float, at path: @autoclosure () -> CodingPathNode) throws -> JSONValue {
        guard value.isFinite else { throw notANumber(value, at: path()) }
        // Widening directly exposes binary noise (0.1 becomes 0.10000000149011612); the shortest
        // decimal text is the number the author wrote.
        return .double(Double(value.description) ?? Double(value))
    }

    private static func notANumber(
        _ value: some BinaryFloatingPoint, at path: CodingPathNode
    ) -> EncodingError {
        let description = "\(value)\(locationPhrase(path)) is not a valid JSON number"
        return .invalidValue(value, .init(codingPath: path.keys, debugDescription: description))
    }
}

/// Dictionaries that encode as objects (keyed by `String` or `Int`), which the encoder writes with
/// their keys sorted rather than in hash order.
protocol SortedKeysEncodable {
    func encodeSorted(at path: CodingPathNode) throws -> JSONValue
}

/// A dictionary key that `Dictionary` encodes as a member name.
protocol MemberNameKey {
    var memberName: String { get }

    /// The positions of `keys` in the order their members are written. A requirement rather than
    /// a generic sort so that the comparisons are specialized: that halves the time for large dictionaries.
    static func sortedPositions(of keys: [Self]) -> [Int]
}

extension String: MemberNameKey {
    var memberName: String { self }

    static func sortedPositions(of keys: [String]) -> [Int] { keys.indices.sorted { keys[$0] < keys[$1] } }
}

extension Int: MemberNameKey {
    var memberName: String { String(self) }

    static func sortedPositions(of keys: [Int]) -> [Int] { keys.indices.sorted { keys[$0] < keys[$1] } }
}

extension Dictionary: SortedKeysEncodable where Key: MemberNameKey, Value: Encodable {
    func encodeSorted(at path: CodingPathNode) throws -> JSONValue {
        // Sorting positions is several times faster than sorting the (key, value) pairs, whose moves
        // go through `Value`'s generic witnesses.
        let keys = Array(self.keys)
        let values = Array(self.values)
        var object = JSONObject(minimumCapacity: count)
        for position in Key.sortedPositions(of: keys) {
            let name = keys[position].memberName
            let value = try ValueEncoder.box(values[position], at: path.appending(StringCodingKey(name)))
            object.append(name, value)
        }
        return .object(object)
    }
}

/// Writes the members of an object, in the order they are encoded.
struct ObjectEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: PendingObject
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.int(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { put(EncodedScalar.integer(value), key) }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try EncodedScalar.double(value, at: path.appending(key)), key)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try EncodedScalar.float(value, at: path.appending(key)), key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        put(try ValueEncoder.box(value, at: path.appending(key)), key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested: PendingObject
        if case .object(let existing)? = object[key.stringValue] {
            nested = existing
        } else {
            nested = PendingObject()
            object.set(.object(nested), for: key.stringValue)
        }
        let container = ObjectEncodingContainer<NestedKey>(object: nested, path: path.appending(key))
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested: PendingArray
        if case .array(let existing)? = object[key.stringValue] {
            nested = existing
        } else {
            nested = PendingArray()
            object.set(.array(nested), for: key.stringValue)
        }
        return ArrayEncodingContainer(array: nested, path: path.appending(key))
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: StringCodingKey("super")) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key) }

    private func superEncoder(named key: some CodingKey) -> any Encoder {
        let encoder = ValueEncoder(path: path.appending(key))
        object.set(.encoder(encoder), for: key.stringValue)
        return encoder
    }

    private func put(_ value: JSONValue, _ key: Key) { object.set(.done(value), for: key.stringValue) }
}

/// Appends the elements of an array.
struct ArrayEncodingContainer: UnkeyedEncodingContainer {
    let array: PendingArray
    let path: CodingPathNode

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { array.elements.count }

    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Int) throws { put(.int(value)) }
    mutating func encode(_ value: Int8) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: Int16) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: Int32) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: Int64) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: UInt) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: UInt8) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: UInt16) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: UInt32) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: UInt64) throws { put(EncodedScalar.integer(value)) }
    mutating func encode(_ value: Double) throws { put(try EncodedScalar.double(value, at: nextPath)) }
    mutating func encode(_ value: Float) throws { put(try EncodedScalar.float(value, at: nextPath)) }
    mutating func encode<T: Encodable>(_ value: T) throws { put(try ValueEncoder.box(value, at: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = PendingObject()
        let container = ObjectEncodingContainer<NestedKey>(object: nested, path: nextPath)
        array.append(.object(nested))
        return KeyedEncodingContainer(container)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = PendingArray()
        let container = ArrayEncodingContainer(array: nested, path: nextPath)
        array.append(.array(nested))
        return container
    }

    mutating func superEncoder() -> any Encoder {
        let encoder = ValueEncoder(path: nextPath)
        array.append(.encoder(encoder))
        return encoder
    }

    /// The path of the element about to be appended.
    private var nextPath: CodingPathNode { path.appending(index: array.elements.count) }

    private func put(_ value: JSONValue) { array.append(.done(value)) }
}
