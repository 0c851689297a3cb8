import CSwiftRuntime

/// Whether a struct or an enum can conform to a protocol, answered from the program's conformance
/// records (read once into a hash set: see CSwiftRuntime's ConformanceIndex.c) instead of a cast.
///
/// Why: a cast that fails (`type as? any Error.Type` for a plain struct) makes the runtime search
/// every conformance record of the program, about 100,000 instructions in a static daemon for each
/// new pair of type and protocol; finding out how to code a view model's types asks a dozen such
/// questions per type, most of them answered no. Here a no costs a hash probe. A pair found means
/// the type *may* conform (the conformance can be conditional, as `Array: BinderyValue` is): the
/// cast then decides. Classes are not answered here (a subclass inherits its superclass's
/// conformances without a record of its own), nor is anything when the records could not be read
/// or ``isUsable``'s check on probe types fails: then every question is "may", and the cast decides.
enum ConformanceIndex {
    /// False only when `type` cannot conform to every protocol of `existential` (`(any Error).self`,
    /// `(any SetAlgebra & Sequence).self`).
    static func mayConform(_ type: Any.Type, to existential: Any.Type) -> Bool {
        guard isUsable else { return true }
        return answer(type, existential) ?? true
    }

    /// The index's own answer: nil when it has none (a class, a type without a nominal descriptor).
    private static func answer(_ type: Any.Type, _ existential: Any.Type) -> Bool? {
        switch TypeMetadata.kind(of: type) {
        case .struct, .enum, .optional: break
        default: return nil
        }
        guard let protocols = protocolDescriptors(of: existential),
              protocols.allSatisfy({ bindery_conformance_protocol_is_indexed($0) != 0 }) else { return nil }
        let descriptor = TypeMetadata.nominalDescriptor(type)
        guard protocols.allSatisfy({ bindery_has_conformance_record(descriptor, $0) != 0 }) else { return false }
        // The standard containers conform to BinderyValue only when their elements do (a
        // conditional conformance, whose check would search the records for the element): ask
        // about the elements first.
        if ObjectIdentifier(existential) == ObjectIdentifier((any BinderyValue).self), let elements = containerElements(type) {
            return elements.allSatisfy { answer($0, existential) ?? true }
        }
        return true
    }

    /// The element types of an `Optional`, `Array`, `Set` or `Dictionary` (its generic arguments),
    /// nil for any other type.
    private static func containerElements(_ type: Any.Type) -> [Any.Type]? {
        let descriptor = TypeMetadata.nominalDescriptor(type)
        let count: Int
        switch descriptor {
        case containers.optional, containers.array, containers.set: count = 1
        case containers.dictionary: count = 2
        default: return nil
        }
        let arguments = unsafeBitCast(type, to: UnsafeRawPointer.self) + 16
        return (0..<count).map { unsafeBitCast(arguments.load(fromByteOffset: $0 * 8, as: UnsafeRawPointer.self), to: Any.Type.self) }
    }

    // Keys of String: a Set<Int> made here would cost a search for Int's Hashable (String's is
    // looked up anyway, by the first dictionary of the program).
    nonisolated(unsafe) private static let containers = (optional: TypeMetadata.nominalDescriptor(Int?.self),
                                     array: TypeMetadata.nominalDescriptor([Int].self),
                                     set: TypeMetadata.nominalDescriptor(Set<String>.self),
                                     dictionary: TypeMetadata.nominalDescriptor([String: Int].self))

    /// The protocol descriptors of an existential type's metadata: its kind, then a 32-bit flags
    /// word and a 32-bit count, a superclass when the flags say so, then the protocols (pointers
    /// whose low bit marks an Objective-C protocol).
    static func protocolDescriptors(of existential: Any.Type) -> [UnsafeRawPointer]? {
        let metadata = unsafeBitCast(existential, to: UnsafeRawPointer.self)
        guard metadata.load(as: UInt.self) == 0x303 else { return nil }
        let flags = metadata.load(fromByteOffset: 8, as: UInt32.self)
        let count = Int(metadata.load(fromByteOffset: 12, as: UInt32.self))
        let first = 16 + (flags & 0x4000_0000 != 0 ? 8 : 0)
        var found: [UnsafeRawPointer] = []
        for index in 0..<count {
            let reference = metadata.load(fromByteOffset: first + index * 8, as: UInt.self)
            guard reference & 1 == 0, let descriptor = UnsafeRawPointer(bitPattern: reference) else { return nil }
            found.append(descriptor)
        }
        return found.isEmpty ? nil : found
    }

    /// Whether the records were read and answer as the casts do, on types whose answers are known.
    /// The protocols Bindery asks about: the index keeps their records alone (a few hundred of the
    /// program's thousands); a question about another protocol is answered "may".
    private static let indexedProtocols: [Any.Type] = [
        (any BinderyValue).self, (any OptionalValue).self, (any ArrayValue).self, (any DictionaryValue).self,
        (any Decodable).self, (any Encodable).self, (any RawRepresentable).self, (any Error).self,
        (any FixedWidthInteger).self, (any BinaryFloatingPoint).self, (any RangeExpression).self,
        (any Sequence).self, (any SetAlgebra).self,
    ]

    static let isUsable: Bool = {
        let protocols: [UnsafeRawPointer?] = indexedProtocols.compactMap { protocolDescriptors(of: $0)?.first }
        protocols.withUnsafeBufferPointer { bindery_conformance_index_protocols($0.baseAddress, $0.count) }
        guard bindery_conformance_record_count() > 0 else { return false }
        return answer(IndexedProbe.self, (any Decodable).self) == true
            && answer(UnindexedProbe.self, (any Decodable).self) == false
            && answer([UnindexedProbe].self, (any BinderyValue).self) == false
            && answer([String].self, (any BinderyValue).self) == true
            && answer(UnindexedProbe.self, (any Error).self) == false
            && answer([Int].self, (any Sequence).self) == true
    }()
}

private struct IndexedProbe: Decodable, Sendable {}
private struct UnindexedProbe {}
