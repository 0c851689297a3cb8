// Optionals and collections of types found at run time: each conformance below lets
// ``DynamicCoders`` reach the element types statically, through the opened existential metatype.

/// `Optional`, seen from code that does not know its wrapped type.
protocol OptionalValue {
    static var wrappedType: Any.Type { get }
    /// The wrapped value of `value` (an instance of Self), none or one.
    static func unwrapAny(_ value: Any) -> [Any]
    /// An instance of Self holding `wrapped` (of the wrapped type).
    static func wrapAny(_ wrapped: Any) -> Any
    /// Self's nil.
    static var noneAny: Any { get }
    @MainActor static func describeOptional(into coder: DynamicCoder)
}

extension Optional: OptionalValue {
    static var wrappedType: Any.Type { Wrapped.self }
    static func unwrapAny(_ value: Any) -> [Any] {
        // Cast to the concrete optional type: a cast of `Any` to a protocol would look inside it.
        guard let wrapped = value as! Wrapped? else { return [] }
        return [wrapped]
    }

    static func wrapAny(_ wrapped: Any) -> Any { Optional(wrapped as! Wrapped) as Any }
    static var noneAny: Any { Wrapped?.none as Any }

    @MainActor static func describeOptional(into coder: DynamicCoder) {
        let inner = DynamicCoders.coder(for: Wrapped.self)
        coder.problem = inner.problem
        coder.valueType = .optional(inner.valueType)
        coder.encodeBody = { value in
            guard let wrapped = value as! Wrapped? else { return .null }
            return inner.encode(wrapped)
        }
        if inner.canDecode {
            coder.decodeBody = { json throws(ValueError) in
                if json == .null { return Wrapped?.none as Any }
                do throws(ValueError) {
                    return Optional(try inner.decode(json) as! Wrapped) as Any
                } catch {
                    throw ValueError(expected: coder.valueType.description, found: error.found, reason: error.reason)
                }
            }
        }
        coder.elementType = Wrapped.self
        coder.elements = { unwrapAny($0) }
    }
}

protocol ArrayValue {
    static var elementType: Any.Type { get }
    static func elementsAny(_ value: Any) -> [Any]
    @MainActor static func describeArray(into coder: DynamicCoder)
}

extension Array: ArrayValue {
    static var elementType: Any.Type { Element.self }
    static func elementsAny(_ value: Any) -> [Any] { (value as! [Element]).map { $0 } }

    @MainActor static func describeArray(into coder: DynamicCoder) {
        let inner = DynamicCoders.coder(for: Element.self)
        coder.problem = inner.problem
        coder.valueType = .array(inner.valueType)
        // Incrementally, as a `BinderyValue` array is: a long list's unchanged elements keep their
        // JSON. Not rows that are (or hold) view models: encoding one attaches its child session
        // to the session reading it, which a JSON kept from another read would skip.
        var holdsViewModels: Bool?  // known once the element type is described (it may contain this one)
        let encodeArray = { (array: [Element]) -> JSONValue in
            if array.isEmpty { return .array([]) }
            if holdsViewModels == nil { holdsViewModels = inner.valueType.containsViewModel }
            if holdsViewModels == true { return .array(array.map { inner.encode($0) }) }
            return ArrayConversions.json(for: array) { inner.encode($0) }
        }
        coder.encodeBody = { value in encodeArray(value as! [Element]) }
        coder.typedEncodeBody = encodeArray
        if inner.canDecode {
            coder.decodeBody = { json throws(ValueError) in
                try SequenceCoding.decodeElements(json, as: coder.valueType, inner) { $0 as! Element } as [Element]
            }
        }
        coder.elementType = Element.self
        coder.elements = { elementsAny($0) }
    }
}

/// `Set`, `IndexSet` and any other set that can be listed: an array without duplicates, sorted by
/// the elements' JSON so that the same set is always sent the same way.
@MainActor
enum SetCoding {
    static func describe<S: SetAlgebra & Sequence>(_: S.Type, into coder: DynamicCoder) {
        typealias Element = S.Element
        let inner = DynamicCoders.coder(for: Element.self)
        coder.problem = inner.problem
        let elementType = inner.valueType
        coder.valueType = _typeName(S.self, qualified: true) == "Foundation.IndexSet"
            ? .formatted(.set(elementType), format: "index-set") : .set(elementType)
        coder.encodeBody = { value in
            let encoded = (value as! S).map { inner.encode($0) }
            return .array(encoded.sorted { JSONWriter.bytes($0).lexicographicallyPrecedes(JSONWriter.bytes($1)) })
        }
        if inner.canDecode {
            coder.decodeBody = { json throws(ValueError) in
                let elements: [Element] = try SequenceCoding.decodeElements(json, as: coder.valueType, inner) { $0 as! Element }
                var set = S()
                for element in elements { set.insert(element) }
                return set
            }
        }
        coder.elementType = Element.self
        coder.elements = { value in (value as! S).map { $0 as Any } }
    }
}

/// Dictionaries: an object when the keys are strings or integers (sorted, as JSON objects have no
/// order of their own), else an array of `{key, value}` objects.
protocol DictionaryValue {
    @MainActor static func describeDictionary(into coder: DynamicCoder)
}

extension Dictionary: DictionaryValue {
    @MainActor static func describeDictionary(into coder: DynamicCoder) {
        let keys = DynamicCoders.coder(for: Key.self), values = DynamicCoders.coder(for: Value.self)
        coder.problem = keys.problem ?? values.problem
        let keyed = Key.self == String.self || Key.self is any FixedWidthInteger.Type
        coder.elementType = Value.self
        coder.elements = { value in (value as! [Key: Value]).values.map { $0 as Any } }
        guard keyed else {
            let pair = ValueType.object("(key: \(keys.typeName), value: \(values.typeName))", [
                .init(name: "key", type: keys.valueType, isOptional: false),
                .init(name: "value", type: values.valueType, isOptional: false),
            ])
            coder.valueType = .array(pair)
            coder.encodeBody = { value in
                let pairs = (value as! [Key: Value]).map { (key: keys.encode($0.key), value: values.encode($0.value)) }
                return .array(pairs.sorted { JSONWriter.bytes($0.key).lexicographicallyPrecedes(JSONWriter.bytes($1.key)) }
                    .map { ["key": $0.key, "value": $0.value] })
            }
            return
        }
        coder.valueType = .dictionary(values.valueType)
        coder.encodeBody = { value in
            let members = (value as! [Key: Value]).map { (key: "\($0.key)", value: values.encode($0.value)) }
            return .object(JSONObject(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }))
        }
        if values.canDecode {
            coder.decodeBody = { json throws(ValueError) in
                guard case .object(let object) = json else { throw ValueError(expected: coder.valueType, found: json) }
                var result: [Key: Value] = [:]
                for (name, member) in object.members {
                    guard let key = Self.key(name) else {
                        throw ValueError(expected: coder.valueType.description, found: "the key \"\(name)\"")
                    }
                    do throws(ValueError) {
                        result[key] = try values.decode(member) as? Value
                    } catch {
                        throw ValueError(expected: error.expected, found: error.found, reason: "at key \"\(name)\"")
                    }
                }
                return result
            }
        }
    }

    private static func key(_ name: String) -> Key? {
        if Key.self == String.self { return name as? Key }
        guard let integer = Key.self as? any FixedWidthInteger.Type else { return nil }
        return integer.init(name, radix: 10) as? Key
    }
}

/// Any other sequence: an array of its elements, read-only unless the type is `Decodable`.
@MainActor
enum SequenceCoding {
    static func describe<S: Sequence>(_ type: S.Type, into coder: DynamicCoder) {
        let inner = DynamicCoders.coder(for: S.Element.self)
        coder.problem = inner.problem
        coder.valueType = .array(inner.valueType)
        coder.encodeBody = { value in .array((value as! S).map { inner.encode($0) }) }
        if let decodable = type as? any Decodable.Type {
            coder.decodeBody = CodableCoding.decoder(decodable, expected: coder.valueType)
        }
        coder.elementType = S.Element.self
        coder.elements = { value in (value as! S).map { $0 as Any } }
    }

    static func decodeElements<Element>(_ json: JSONValue, as valueType: ValueType, _ inner: DynamicCoder,
                                        _ cast: (Any) -> Element) throws(ValueError) -> [Element] {
        guard case .array(let elements) = json else { throw ValueError(expected: valueType, found: json) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do throws(ValueError) {
                result.append(cast(try inner.decode(element)))
            } catch {
                throw ValueError(expected: error.expected, found: error.found, reason: "at index \(index)")
            }
        }
        return result
    }
}
