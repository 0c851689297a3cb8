import FoundationEssentials

/// Enums found at run time: those without associated values as strings, the others as tagged objects.
@MainActor
enum EnumCoding {
    /// A string per case: its `String` raw value, else its case name (an `Int` raw value, as
    /// Foundation's `Formatter.UnitStyle` has, means nothing to a person choosing from a list).
    static func describePayloadless(_ type: Any.Type, cases: [TypeMetadata.EnumCase], into coder: DynamicCoder) {
        describePayloadless(opening: type, cases: cases, into: coder)
    }

    private static func describePayloadless<T>(opening type: T.Type, cases: [TypeMetadata.EnumCase], into coder: DynamicCoder) {
        // Plain loops: `zip`, `enumerated` and a value's `as? any RawRepresentable` here, in code
        // generic over T, each make the runtime look a conformance up by searching every record.
        let raw = ConformanceIndex.cast(T.self, to: (any RawRepresentable.Type).self)
        var values: [T] = []
        var names: [String] = []
        var tags: [String: Int] = [:]
        for tag in 0..<cases.count {
            let value = TypeMetadata.payloadlessEnum(T.self, tag: tag)
            let name = raw.flatMap { rawString(of: value, as: $0) } ?? cases[tag].name
            values.append(value)
            names.append(name)
            if tags[name] == nil { tags[name] = tag }
        }
        coder.valueType = .enumeration(names)
        coder.encodeBody = { value in
            let tag = TypeMetadata.payloadlessTag(of: value as! T)
            return tag < names.count ? .string(names[tag]) : .null
        }
        coder.decodeBody = { json throws(ValueError) in
            guard case .string(let name) = json else { throw ValueError(expected: coder.valueType, found: json) }
            guard let tag = tags[name] else { throw ValueError(expected: coder.valueType.description, found: "\"\(name)\"") }
            return values[tag]
        }
    }

    private static func rawString<Raw: RawRepresentable>(of value: Any, as type: Raw.Type) -> String? {
        (value as? Raw)?.rawValue as? String
    }

    /// `{"case": name}` plus the payload's members: labelled associated values by their labels,
    /// unlabelled ones as `_0`, `_1`... (Swift's own `Codable` names). Writable when `Decodable`.
    static func describeUnion(_ type: Any.Type, into coder: DynamicCoder) {
        describeUnion(opening: type, into: coder)
    }

    private static func describeUnion<T>(opening type: T.Type, into coder: DynamicCoder) {
        let cases = TypeMetadata.cases(of: T.self) ?? []
        coder.valueType = .union(coder.typeName, cases.map { enumCase in
            ValueType.Case(name: enumCase.name, members: enumCase.hasPayload ? payloadMembers(enumCase.payloadType) : [])
        })
        coder.encodeBody = { value in encode(value as! T) }
        if let decodable = T.self as? any Decodable.Type {
            let decode = CodableCoding.decoder(decodable, expected: coder.valueType)
            coder.decodeBody = { json throws(ValueError) in
                // {"case": "failed", "message": "…"} is Swift's {"failed": {"message": "…"}}.
                guard case .object(let object) = json, case .string(let name)? = object["case"] else {
                    throw ValueError(expected: coder.valueType.description, found: json.typeName, reason: "no \"case\" member")
                }
                guard cases.contains(where: { $0.name == name }) else {
                    throw ValueError(expected: coder.valueType.description, found: "\"case\": \"\(name)\"")
                }
                let payload = JSONObject(object.members.filter { $0.key != "case" })
                return try decode(.object(JSONObject([(key: name, value: .object(payload))])))
            }
        }
    }

    private static func encode<T>(_ value: T) -> JSONValue {
        let mirror = Mirror(reflecting: value)
        guard let payload = mirror.children.first, let name = payload.label else {
            return ["case": .string(TypeMetadata.caseName(of: value) ?? String(describing: value))]
        }
        var object: JSONObject = ["case": .string(name)]
        let parts = Mirror(reflecting: payload.value)
        if parts.displayStyle == .tuple {
            for (index, part) in parts.children.enumerated() {
                object.append(memberName(part.label, index), encodeDynamic(part.value))
            }
        } else {
            object.append("_0", encodeDynamic(payload.value))
        }
        return .object(object)
    }

    /// The members of a payload of this type: a tuple's elements, or one `_0`.
    private static func payloadMembers(_ type: Any.Type?) -> [ValueType.Member] {
        guard let type else { return [ValueType.Member(name: "_0", type: .any, isOptional: false)] }
        if TypeMetadata.kind(of: type) == .tuple, let elements = TypeMetadata.storedProperties(of: type) {
            return elements.enumerated().map { index, element in
                let coder = DynamicCoders.coder(for: element.type)
                return ValueType.Member(name: memberName(element.name, index), type: coder.valueType, isOptional: false)
            }
        }
        return [ValueType.Member(name: "_0", type: DynamicCoders.coder(for: type).valueType, isOptional: false)]
    }

    /// A tuple element's name as a member: its label, or `_N` (Mirror says `.N`, the runtime "").
    static func memberName(_ label: String?, _ index: Int) -> String {
        guard let label, !label.isEmpty, !label.hasPrefix(".") else { return "_\(index)" }
        return label
    }
}

/// A value coded by its own dynamic type.
@MainActor
func encodeDynamic(_ value: Any) -> JSONValue {
    let coder = DynamicCoders.coder(for: type(of: value))
    return coder.problem == nil ? coder.encode(value) : .string(String(describing: value))
}

/// Errors: their message, read-only (`var error: Error?` in a view model shows as text).
@MainActor
enum ErrorCoding {
    static func describe(_ type: Any.Type, into coder: DynamicCoder) {
        coder.valueType = .formatted(.string, format: "error")
        coder.encodeBody = { value in .string(ErrorMessage.of(value as! any Error)) }
    }
}

/// Tuples: an object when every element is labelled, else an array. Read-only.
@MainActor
enum TupleCoding {
    static func describe(_ type: Any.Type, into coder: DynamicCoder) {
        let elements = TypeMetadata.storedProperties(of: type) ?? []
        let labelled = !elements.isEmpty && elements.allSatisfy { !$0.name.isEmpty && !$0.name.hasPrefix(".") }
        let types = elements.map { DynamicCoders.coder(for: $0.type) }
        coder.problem = types.compactMap(\.problem).first
        if labelled {
            coder.valueType = .object(coder.typeName, zip(elements, types).map { .init(name: $0.name, type: $1.valueType, isOptional: false) })
        } else {
            coder.valueType = .array(types.first?.valueType ?? .any)
        }
        coder.encodeBody = { value in
            let parts = Mirror(reflecting: value).children.map(\.value)
            if labelled {
                return .object(JSONObject(zip(elements, parts).map { (key: $0.name, value: encodeDynamic($1)) }))
            }
            return .array(parts.map(encodeDynamic))
        }
    }
}
