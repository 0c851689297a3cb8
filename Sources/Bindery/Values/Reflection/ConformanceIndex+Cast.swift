import CSwiftRuntime

/// Positive casts without the runtime's search: `type as? any P.Type` made from the witness table
/// of the conformance record the index found.
///
/// Why: the first cast of each type to each protocol searches every conformance record of the
/// program even when it succeeds (~90,000 instructions in a static daemon); finding out how to code
/// an app's `Codable` struct asks several (`Decodable`, `Encodable`, and Bindery's own container
/// protocols for its arrays and optionals). An existential metatype is the type's metadata and the
/// witness table, so with the table of the record (the runtime's `swift_getWitnessTable`, as the
/// cast calls it once it has found the record) there is nothing to search. Where the record has
/// conditional requirements (`Array: Decodable`), or the index is not usable, the runtime's cast
/// decides, after the index's cheap "no".
extension ConformanceIndex {
    /// `type as? Existential`, `Existential` the metatype of one protocol's existential
    /// (`(any Decodable.Type).self`).
    static func cast<Existential>(_ type: Any.Type, to existential: Existential.Type) -> Existential? {
        let protocolType = instanceType(of: existential)
        if witnessTablesAreUsable, let table = witnessTable(type, protocolType) {
            return unsafeBitCast((type, table), to: Existential.self)
        }
        guard mayConform(type, to: protocolType) else { return nil }
        return type as? Existential
    }

    /// The witness table of `type` for the single protocol of `protocolType` (`(any
    /// Decodable).self`), from the conformance record the index holds.
    private static func witnessTable(_ type: Any.Type, _ protocolType: Any.Type) -> UnsafeRawPointer? {
        switch TypeMetadata.kind(of: type) {
        case .struct, .enum, .optional: break
        default: return nil  // a class may inherit its conformance: the runtime knows how
        }
        guard let protocols = protocolDescriptors(of: protocolType), protocols.count == 1,
              bindery_conformance_protocol_is_indexed(protocols[0]) != 0 else { return nil }
        return bindery_conformance_witness_table(unsafeBitCast(type, to: UnsafeRawPointer.self),
                                                 TypeMetadata.nominalDescriptor(type), protocols[0])
    }

    /// An existential metatype's metadata: its kind (0x306), then its instance type.
    private static func instanceType(of existential: Any.Type) -> Any.Type {
        let metadata = unsafeBitCast(existential, to: UnsafeRawPointer.self)
        precondition(metadata.load(as: UInt.self) == 0x306 && MemoryLayout<(Any.Type, UnsafeRawPointer)>.size == 16,
                     "ConformanceIndex.cast takes the metatype of one protocol's existential")
        return unsafeBitCast(metadata.load(fromByteOffset: 8, as: UnsafeRawPointer.self), to: Any.Type.self)
    }

    /// Whether the tables found from records are the ones the compiler's own conversions use
    /// (which reach the witness table without a search, so checking costs none).
    static let witnessTablesAreUsable: Bool = {
        guard isUsable else { return false }
        // The existential's type is given: a bare `any P.Type` argument would be opened (SE-0352).
        func agrees<Existential>(_ type: Any.Type, _ existential: Existential.Type, _ converted: Existential) -> Bool {
            guard let table = witnessTable(type, instanceType(of: existential)) else { return false }
            return unsafeBitCast(converted, to: (UnsafeRawPointer, UnsafeRawPointer).self)
                == (unsafeBitCast(type, to: UnsafeRawPointer.self), table)
        }
        return agrees(IndexedWitnessProbe.self, (any Decodable.Type).self, IndexedWitnessProbe.self)
            && agrees(IndexedWitnessProbe.self, (any Encodable.Type).self, IndexedWitnessProbe.self)
            && agrees(String.self, (any BinderyValue.Type).self, String.self)
            && agrees([Int].self, (any ArrayValue.Type).self, [Int].self)
    }()
}

private struct IndexedWitnessProbe: Codable, Sendable {}
