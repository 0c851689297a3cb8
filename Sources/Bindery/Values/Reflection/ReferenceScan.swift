/// Whether values of a type may hold a reference whose contents can change while the value's own
/// bytes stay the same: a class instance, an existential (which may hold one), a function, a
/// nested collection (its storage). What `ArrayConversions` must know before it reuses an
/// array's JSON for the same bytes.
///
/// Read from the type's metadata (its stored properties, its enum cases), not from a value through
/// `Mirror`: a mirror asks each type for conformances (`CustomReflectable`, ...), and in a static
/// daemon each failed ask searches every conformance record — 2.9 million instructions for the
/// first list of movies, which a fan-out to 1,000 lists paid in full. Unknown shapes answer true.
enum ReferenceScan {
    static func mayHoldReference(_ type: Any.Type) -> Bool {
        var visiting: [ObjectIdentifier] = []
        return mayHoldReference(type, visiting: &visiting)
    }

    /// Strings and the standard scalars: values whose storage never changes under them.
    private static let plainTypes: Set<ObjectIdentifier> = [
        String.self, Substring.self, Character.self, Bool.self, Double.self, Float.self,
        Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self, UInt32.self, UInt64.self,
    ].reduce(into: []) { $0.insert(ObjectIdentifier($1)) }

    /// Collections: their storage is a reference (not worth proving further, as before).
    private static let collectionTypes: [Any.Type] = [[Int].self, [Int: Int].self, Set<Int>.self]

    private static func mayHoldReference(_ type: Any.Type, visiting: inout [ObjectIdentifier]) -> Bool {
        let identity = ObjectIdentifier(type)
        if plainTypes.contains(identity) { return false }
        if collectionTypes.contains(where: { TypeMetadata.sameGenericType($0, type) }) { return true }
        // A recursive type (through an indirect case) is judged by its other members.
        if visiting.contains(identity) { return false }
        visiting.append(identity)
        defer { visiting.removeLast() }
        switch TypeMetadata.kind(of: type) {
        case .optional:
            guard let wrapped = TypeMetadata.wrappedType(ofOptional: type) else { return true }
            return mayHoldReference(wrapped, visiting: &visiting)
        case .struct:
            guard let properties = TypeMetadata.storedProperties(of: type) else { return true }
            return properties.contains { mayHoldReference($0.type, visiting: &visiting) }
        case .enum:
            guard let cases = TypeMetadata.cases(of: type) else { return true }
            return cases.contains { enumCase in
                guard enumCase.hasPayload else { return false }
                guard let payload = enumCase.payloadType else { return true }
                return mayHoldReference(payload, visiting: &visiting)
            }
        default:
            return true
        }
    }
}
