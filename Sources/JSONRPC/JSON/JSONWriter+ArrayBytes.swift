extension JSONWriter {
    /// The serialized bytes of arrays already written, by their storage: when many messages carry
    /// the same array (a fan-out's thousand `didChange`s each carry the one list they all read),
    /// it is written once and copied after that.
    ///
    /// Sound because an array's storage holds the same elements for as long as it lives, and each
    /// entry keeps its array alive, so an address cannot be reused by another array meanwhile.
    /// Keep one only as long as the messages that share arrays (one collection of changes).
    public struct ArrayBytes {
        fileprivate struct Key: Hashable {
            let address: UInt
            let count: Int
        }

        private var entries: [Key: (array: [JSONValue], bytes: [UInt8])] = [:]

        public init() {}

        fileprivate static func key(_ array: [JSONValue]) -> Key {
            Key(address: array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, count: array.count)
        }

        fileprivate func bytes(for array: [JSONValue]) -> [UInt8]? {
            entries[Self.key(array)]?.bytes
        }

        fileprivate mutating func remember(_ array: [JSONValue], _ bytes: [UInt8]) {
            entries[Self.key(array)] = (array, bytes)
        }
    }
}

extension JSONWriter.Output {
    /// Appends `object`, each member's value as ``write(_:reusing:)-(JSONValue,_)`` writes it.
    public mutating func write(_ object: JSONObject, reusing arrays: inout JSONWriter.ArrayBytes) {
        write(object) { $0.write($1, reusing: &arrays) }
    }

    /// Appends `value`, taking a non-empty array's bytes from `arrays` when it was written before,
    /// and remembering them there otherwise.
    public mutating func write(_ value: JSONValue, reusing arrays: inout JSONWriter.ArrayBytes) {
        guard case .array(let elements) = value, !elements.isEmpty else { return write(value) }
        if let bytes = arrays.bytes(for: elements) {
            return bytes.withUnsafeBufferPointer { append($0) }
        }
        let start = byteCount
        write(value)
        arrays.remember(elements, Array(bytesWritten(from: start)))
    }
}
