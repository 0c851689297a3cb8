/// Numbers of every width: integers of any fixed width (range-checked when written), any
/// floating-point type, and `Duration` as seconds.
@MainActor
enum NumberCoding {
    static func describeInteger<T: FixedWidthInteger>(_: T.Type, into coder: DynamicCoder) {
        coder.valueType = .integer
        coder.encodeBody = { value in
            let integer = value as! T
            return Int(exactly: integer).map(JSONValue.int) ?? .double(Double(integer))
        }
        coder.decodeBody = { json throws(ValueError) in
            let wide = try Int(jsonValue: json)
            guard let value = T(exactly: wide) else {
                throw ValueError(expected: "integer", found: "\(wide)", reason: "out of range for \(T.self)")
            }
            return value
        }
    }

    static func describeFloatingPoint<T: BinaryFloatingPoint>(_: T.Type, into coder: DynamicCoder) {
        coder.valueType = .number
        coder.encodeBody = { value in Double(value as! T).jsonValue }
        coder.decodeBody = { json throws(ValueError) in T(try Double(jsonValue: json)) }
    }

    /// A `Duration` as a number of seconds (`1.5`).
    static func describeDuration(into coder: DynamicCoder) {
        coder.valueType = .formatted(.number, format: "seconds")
        coder.encodeBody = { value in
            let (seconds, attoseconds) = (value as! Duration).components
            return .double(Double(seconds) + Double(attoseconds) / 1e18)
        }
        coder.decodeBody = { json throws(ValueError) in Duration.seconds(try Double(jsonValue: json)) }
    }
}
