/// Finds (once per type) how to code a Swift type that is not a ``BinderyValue``.
///
/// In order, a type is:
/// 1. a ``BinderyValue`` (the standard scalars, Foundation's values, arrays and optionals of them):
///    its own coding; any other integer or floating-point type: a number; a `Duration`: seconds;
/// 2. an `Optional`: the wrapped type's, or null;
/// 3. an `Error` (a concrete one or `any Error`): its message, read-only;
/// 4. an enum without associated values: a string (its `String` raw value, else its case name),
///    with its cases in the schema — whether or not it is `CaseIterable` or has raw values;
/// 5. a dictionary: an object (keys sorted), or `[{key, value}]` for keys that are not strings or
///    integers; a `SetAlgebra` sequence (`Set`, `IndexSet`): a sorted array without duplicates;
///    any other sequence: an array (a sequence of pairs from an ordered dictionary included);
/// 6. an enum with associated values: `{"case": name, ...payload members}`;
/// 7. a `RawRepresentable` struct (an `OptionSet`): its raw value, read with `init(rawValue:)`; any
///    other struct (or a range: its bounds): an object of its stored properties — by its `Codable`
///    form when it has one; a `Codable` class likewise;
/// 8. a tuple: an object when labelled, else an array (read-only); a view model: a child (see
///    `ChildSessions`);
/// 9. anything else (a class that is neither `Codable` nor a view model, a function) cannot be shown.
@MainActor
enum DynamicCoders {
    private static var coders: [ObjectIdentifier: DynamicCoder] = [:]

    static func coder(for type: Any.Type) -> DynamicCoder {
        let id = ObjectIdentifier(type)
        if let coder = coders[id] { return coder }
        let coder = DynamicCoder(typeName: _typeName(type, qualified: false))
        coders[id] = coder  // before looking inside: a type that contains itself finds this one
        classify(type, into: coder)
        return coder
    }

    private static func classify(_ type: Any.Type, into coder: DynamicCoder) {
        // Each question below is asked of the conformance index before it is asked of the runtime:
        // a failed cast searches every conformance record of the program (see ConformanceIndex).
        func may(_ existential: Any.Type) -> Bool { ConformanceIndex.mayConform(type, to: existential) }
        if let bindery = ConformanceIndex.cast(type, to: (any BinderyValue.Type).self) { return bindery.describe(into: coder) }
        if may((any FixedWidthInteger).self), let integer = type as? any FixedWidthInteger.Type {
            return NumberCoding.describeInteger(integer, into: coder)
        }
        if may((any BinaryFloatingPoint).self), let number = type as? any BinaryFloatingPoint.Type {
            return NumberCoding.describeFloatingPoint(number, into: coder)
        }
        if type == Duration.self { return NumberCoding.describeDuration(into: coder) }
        if let optional = ConformanceIndex.cast(type, to: (any OptionalValue.Type).self) { return optional.describeOptional(into: coder) }
        if ObjectIdentifier(type) == ObjectIdentifier((any Error).self) {
            return ErrorCoding.describe((any Error).self, into: coder)
        }
        if may((any Error).self), let error = type as? any Error.Type { return ErrorCoding.describe(error, into: coder) }
        let kind = TypeMetadata.kind(of: type)
        if kind == .enum, let cases = TypeMetadata.cases(of: type), cases.allSatisfy({ !$0.hasPayload }) {
            return EnumCoding.describePayloadless(type, cases: cases, into: coder)
        }
        if let dictionary = ConformanceIndex.cast(type, to: (any DictionaryValue.Type).self) {
            return dictionary.describeDictionary(into: coder)
        }
        if may((any SetAlgebra & Sequence).self), let set = type as? any (SetAlgebra & Sequence).Type {
            return SetCoding.describe(set, into: coder)
        }
        if let array = ConformanceIndex.cast(type, to: (any ArrayValue.Type).self) { return array.describeArray(into: coder) }
        // A range is its bounds, not its (possibly millions of) elements.
        if may((any RangeExpression).self), type is any RangeExpression.Type {
            return StructCoding.describe(type, into: coder, byStoredProperties: true)
        }
        if may((any Sequence).self), let sequence = type as? any Sequence.Type { return SequenceCoding.describe(sequence, into: coder) }
        if kind == .class, let child = type as? any ViewModel.Type { return describeChild(child, into: coder) }
        if kind == .struct, may((any RawRepresentable).self), let raw = type as? any RawRepresentable.Type {
            return RawValueCoding.describe(raw, into: coder)
        }
        switch kind {
        case .enum: EnumCoding.describeUnion(type, into: coder)
        case .struct: StructCoding.describe(type, into: coder)
        case .tuple: TupleCoding.describe(type, into: coder)
        case .existential: AnyCoding.describe(into: coder)
        case .class where type is any Encodable.Type:
            StructCoding.describe(type, into: coder)  // a Codable class: shown (and written) by its Codable form
        case .class:
            coder.problem = "\(coder.typeName) is a class: Bindery shows values (structs, enums, collections), Codable classes and view models"
        case .function:
            coder.problem = "\(coder.typeName) is a function type, which has no JSON form"
        default:
            coder.problem = "\(coder.typeName) is neither a value type nor a view model"
        }
    }
}

@MainActor private func describeChild<Model: ViewModel>(_ type: Model.Type, into coder: DynamicCoder) {
    ChildCoding.describe(Model.self, into: coder)
}

extension BinderyValue {
    @MainActor static func describe(into coder: DynamicCoder) {
        coder.valueType = valueType
        coder.encodeBody = { ($0 as! Self).jsonValue }
        coder.decodeBody = { json throws(ValueError) in try Self(jsonValue: json) }
        if let optional = self as? any OptionalValue.Type {
            coder.elementType = optional.wrappedType
            coder.elements = { optional.unwrapAny($0) }
        } else if let array = self as? any ArrayValue.Type {
            coder.elementType = array.elementType
            coder.elements = { array.elementsAny($0) }
        }
    }
}

/// A value whose JSON form depends on its dynamic type (an `Any`, an existential): coded by what
/// each value turns out to be.
@MainActor
enum AnyCoding {
    static func describe(into coder: DynamicCoder) {
        coder.valueType = .any
        coder.encodeBody = { value in
            let dynamicType = type(of: value)
            let inner = DynamicCoders.coder(for: dynamicType)
            return inner.problem == nil ? inner.encode(value) : .string(String(describing: value))
        }
    }
}
