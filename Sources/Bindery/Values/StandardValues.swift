// BinderyValue conformances of the standard library's scalars, optionals and arrays.

extension String: BinderyValue {
    public static var valueType: ValueType { .string }
    public var jsonValue: JSONValue { .string(self) }
    public init(jsonValue: JSONValue) throws(ValueError) {
        guard case .string(let value) = jsonValue else { throw ValueError(expected: .string, found: jsonValue) }
        self = value
    }
}

extension Bool: BinderyValue {
    public static var valueType: ValueType { .bool }
    public var jsonValue: JSONValue { .bool(self) }
    public init(jsonValue: JSONValue) throws(ValueError) {
        guard case .bool(let value) = jsonValue else { throw ValueError(expected: .bool, found: jsonValue) }
        self = value
    }
}

extension Int: BinderyValue {
    public static var valueType: ValueType { .integer }
    public var jsonValue: JSONValue { .int(self) }
    /// Accepts a JSON integer, or a number with no fractional part that fits (`3.0`).
    public init(jsonValue: JSONValue) throws(ValueError) {
        switch jsonValue {
        case .int(let value):
            self = value
        case .double(let value):
            guard value.rounded() == value else {
                throw ValueError(expected: "integer", found: "\(value)", reason: "not a whole number")
            }
            // Double(Int.max) rounds up to 2^63, which does not fit: hence the strict upper bound.
            guard value >= -9.223372036854775808e18, value < 9.223372036854775808e18 else {
                throw ValueError(expected: "integer", found: "\(value)", reason: "out of range for a 64-bit integer")
            }
            self = Int(value)
        default:
            throw ValueError(expected: .integer, found: jsonValue)
        }
    }
}

extension Double: BinderyValue {
    public static var valueType: ValueType { .number }
    /// Non-finite values have no JSON spelling; they are sent as null.
    public var jsonValue: JSONValue { isFinite ? .double(self) : .null }
    public init(jsonValue: JSONValue) throws(ValueError) {
        switch jsonValue {
        case .int(let value): self = Double(value)
        case .double(let value) where value.isFinite: self = value
        case .double: throw ValueError(expected: "number", found: "a number beyond the range of a double")
        default: throw ValueError(expected: .number, found: jsonValue)
        }
    }
}

extension Float: BinderyValue {
    public static var valueType: ValueType { .number }
    /// Sent through `Double(description)` so that 45.1 reads 45.1 on the wire, not 45.099998474121094.
    public var jsonValue: JSONValue { isFinite ? .double(Double(description) ?? Double(self)) : .null }
    public init(jsonValue: JSONValue) throws(ValueError) {
        let value = try Double(jsonValue: jsonValue)
        // Accept whatever rounds to a finite Float, so that every value Bindery writes (Float.max is
        // written 3.4028235e+38, a little above it) is accepted back.
        let rounded = Float(value)
        guard rounded.isFinite else {
            throw ValueError(expected: "number", found: "\(value)", reason: "out of range for a 32-bit float")
        }
        self = rounded
    }
}

extension Optional: BinderyValue where Wrapped: BinderyValue {
    public static var valueType: ValueType { .optional(Wrapped.valueType) }
    public var jsonValue: JSONValue { self?.jsonValue ?? .null }
    public init(jsonValue: JSONValue) throws(ValueError) {
        if jsonValue == .null {
            self = nil
            return
        }
        do {
            self = try Wrapped(jsonValue: jsonValue)
        } catch {
            throw ValueError(expected: Self.valueType.description, found: error.found, reason: error.reason)
        }
    }
}

extension Array: BinderyValue where Element: BinderyValue {
    public static var valueType: ValueType { .array(Element.valueType) }
    public var jsonValue: JSONValue {
        // Once for every session that reads the same array in one collection of changes, and a
        // long list incrementally (see ArrayConversions).
        isEmpty ? .array([]) : ArrayConversions.json(for: self) { $0.jsonValue }
    }
    public init(jsonValue: JSONValue) throws(ValueError) {
        guard case .array(let elements) = jsonValue else { throw ValueError(expected: Self.valueType, found: jsonValue) }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            do {
                result.append(try Element(jsonValue: element))
            } catch {
                throw ValueError(expected: error.expected, found: error.found, reason: "at index \(index)")
            }
        }
        self = result
    }
}

/// Any JSON, as it is: for a member whose shape only the view model knows (a `[String: Any]`-style
/// context, typed).
extension JSONValue: BinderyValue {
    public static var valueType: ValueType { .any }
    public var jsonValue: JSONValue { self }
    public init(jsonValue: JSONValue) throws(ValueError) { self = jsonValue }
}
