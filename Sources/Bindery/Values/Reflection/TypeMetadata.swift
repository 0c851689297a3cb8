@_spi(Reflection) import Swift
import CSwiftRuntime

/// What the Swift runtime says about a type that `Mirror` cannot: its kind, an enum's cases
/// (names, and payload types where they can be resolved) without a value, a struct's stored
/// properties without an instance, and an enum value's case name.
///
/// Reads the runtime's own metadata records (the layouts of the stable Swift ABI: a type's metadata
/// word 0 is its kind, word 1 its nominal type descriptor; an enum descriptor counts its payload and
/// empty cases; its field descriptor lists the cases). `Tests/BinderyTests/TypeMetadataTests` fails
/// loudly if a toolchain changes any of it.
enum TypeMetadata {
    enum Kind: Equatable {
        case `struct`, `enum`, optional, tuple, function, existential, metatype, `class`, other
    }

    static func kind(of type: Any.Type) -> Kind {
        let raw = metadata(type).load(as: UInt.self)
        switch raw {
        case 0x200: return .struct
        case 0x201: return .enum
        case 0x202: return .optional
        case 0x301: return .tuple
        case 0x302: return .function
        case 0x303: return .existential
        case 0x304: return .metatype
        case 0: return .class
        default: return raw > 0x7FF ? .class : .other
        }
    }

    /// A case of an enum: its name, and whether (and of what type, when it can be resolved) it
    /// carries a payload.
    struct EnumCase {
        let name: String
        let hasPayload: Bool
        let payloadType: Any.Type?
    }

    /// The cases of an enum in the order the runtime numbers them (its reflection records' order):
    /// those with payloads first, then the others, each group in declaration order — so without
    /// payloads, declaration order, and a case's place in the list is its tag. Nil for any other type.
    static func cases(of type: Any.Type) -> [EnumCase]? {
        guard kind(of: type) == .enum || kind(of: type) == .optional else { return nil }
        let descriptor = nominalDescriptor(type)
        let isGeneric = descriptor.load(as: UInt32.self) & 0x80 != 0
        guard let fields = relative(descriptor + 16) else { return nil }
        let recordSize = Int(fields.load(fromByteOffset: 10, as: UInt16.self))
        let count = Int(fields.load(fromByteOffset: 12, as: UInt32.self))
        var cases: [EnumCase] = []
        for index in 0..<count {
            let record = fields + 16 + index * recordSize
            guard let namePointer = relative(record + 8) else { return nil }
            let name = String(cString: namePointer.assumingMemoryBound(to: CChar.self))
            if let mangled = relative(record + 4), mangled.load(as: UInt8.self) != 0 {
                // A generic enum's payload names its parameters: resolved with this instance's
                // arguments (`LoadState<[Film]>.loaded` is a `[Film]`).
                let payload = resolve(mangled, in: descriptor, arguments: isGeneric ? genericArguments(of: type) : nil)
                cases.append(EnumCase(name: name, hasPayload: true, payloadType: payload))
            } else {
                cases.append(EnumCase(name: name, hasPayload: false, payloadType: nil))
            }
        }
        // The counts the descriptor keeps, to check the records were read right.
        let payloadCount = Int(descriptor.load(fromByteOffset: 20, as: UInt32.self) & 0x00FF_FFFF)
        let emptyCount = Int(descriptor.load(fromByteOffset: 24, as: UInt32.self))
        guard payloadCount == cases.count(where: \.hasPayload), emptyCount == cases.count(where: { !$0.hasPayload }) else {
            return nil
        }
        return cases
    }

    /// The name of the case `value` holds (an enum's).
    static func caseName<T>(of value: T) -> String? {
        enumCaseName(value).map { String(cString: $0) }
    }

    /// The stored properties of a struct, in declaration order: names and types.
    static func storedProperties(of type: Any.Type) -> [(name: String, type: Any.Type)]? {
        var properties: [(name: String, type: Any.Type)] = []
        let complete = _forEachField(of: type, options: []) { name, _, fieldType, _ in
            properties.append((String(cString: name), fieldType))
            return true
        }
        return complete ? properties : nil
    }

    /// A value of an enum without payloads, made from its tag (0..<number of cases).
    static func payloadlessEnum<T>(_ type: T.Type, tag: Int) -> T {
        let size = MemoryLayout<T>.size
        precondition(size <= 8, "an enum without payloads of \(size) bytes")
        return withUnsafeTemporaryAllocation(byteCount: max(size, 1), alignment: MemoryLayout<T>.alignment) { buffer in
            var tagValue = UInt64(tag).littleEndian
            withUnsafeBytes(of: &tagValue) { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(size)))
            }
            return buffer.baseAddress!.load(as: T.self)
        }
    }

    /// The tag of a value of an enum without payloads.
    static func payloadlessTag<T>(of value: T) -> Int {
        withUnsafeBytes(of: value) { bytes in
            var tag: UInt64 = 0
            for (shift, byte) in bytes.prefix(8).enumerated() { tag |= UInt64(byte) << (8 * UInt64(shift)) }
            return Int(tag)
        }
    }

    /// Whether two types are instances of one generic type (`[Int]` and `[Movie]`): the same
    /// nominal type descriptor. False for types that have none (tuples, functions, existentials).
    static func sameGenericType(_ left: Any.Type, _ right: Any.Type) -> Bool {
        let kinds: [Kind] = [.struct, .enum, .optional, .class]
        guard kinds.contains(kind(of: left)), kinds.contains(kind(of: right)) else { return false }
        return nominalDescriptor(left) == nominalDescriptor(right)
    }

    /// The type an `Optional` wraps (its metadata's one generic argument); nil for any other type.
    static func wrappedType(ofOptional type: Any.Type) -> Any.Type? {
        guard kind(of: type) == .optional else { return nil }
        return unsafeBitCast(metadata(type).load(fromByteOffset: 16, as: UnsafeRawPointer.self), to: Any.Type.self)
    }

    // MARK: Raw records

    private static func metadata(_ type: Any.Type) -> UnsafeRawPointer {
        unsafeBitCast(type, to: UnsafeRawPointer.self)
    }

    static func nominalDescriptor(_ type: Any.Type) -> UnsafeRawPointer {
        metadata(type).load(fromByteOffset: 8, as: UnsafeRawPointer.self)
    }

    /// A generic struct's or enum's arguments: in its metadata right after the kind and the
    /// descriptor (value types' generic argument offset is two words).
    private static func genericArguments(of type: Any.Type) -> UnsafePointer<UnsafeRawPointer?> {
        (metadata(type) + 16).assumingMemoryBound(to: UnsafeRawPointer?.self)
    }

    /// Follows a 32-bit relative pointer stored at `pointer`; nil when it is null.
    private static func relative(_ pointer: UnsafeRawPointer) -> UnsafeRawPointer? {
        let offset = pointer.load(as: Int32.self)
        return offset == 0 ? nil : pointer + Int(offset)
    }

    /// The type a mangled name in a field record stands for, resolved as the runtime does.
    private static func resolve(_ mangled: UnsafeRawPointer, in descriptor: UnsafeRawPointer,
                                arguments: UnsafePointer<UnsafeRawPointer?>? = nil) -> Any.Type? {
        let length = mangledNameLength(mangled)
        guard let metadata = bindery_type_by_mangled_name(mangled.assumingMemoryBound(to: CChar.self), length, descriptor,
                                                          arguments) else {
            return nil
        }
        return unsafeBitCast(metadata, to: Any.Type.self)
    }

    /// A mangled name's length: it ends at a zero byte, but symbolic references (a control byte then
    /// a 4- or 8-byte reference) may contain zeros.
    private static func mangledNameLength(_ start: UnsafeRawPointer) -> Int {
        var end = start
        while true {
            let byte = end.load(as: UInt8.self)
            if byte == 0 { break }
            if byte >= 0x01, byte <= 0x17 { end += 5 } else if byte >= 0x18, byte <= 0x1F { end += 1 + MemoryLayout<UInt>.size } else { end += 1 }
        }
        return end - start
    }
}

@_silgen_name("swift_EnumCaseName")
private func enumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?
