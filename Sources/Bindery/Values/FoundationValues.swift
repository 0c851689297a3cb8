import FoundationEssentials

// Foundation's value types, in the JSON forms a JSON reader expects (pinned in protocol.md,
// "Value types"), wherever they occur: as fields, outputs, arguments and results, and nested in
// structs, arrays and dictionaries (through `CustomJSONValueCoding`, which the `Codable` coding uses).

/// The `format` each Foundation type declares in the schema, and a value of it for schema probes.
enum FormatSamples {
    static let sample: [String: JSONValue] = [
        "date-time": "2001-01-01T00:00:00Z",
        "uuid": "00000000-0000-0000-0000-000000000000",
        "uri": "about:blank",
        "decimal": "0",
        "byte": "",
    ]
}

/// A Foundation value whose `BinderyValue` conformance is its `CustomJSONValueCoding`.
protocol FoundationValue: BinderyValue, CustomJSONValueCoding {
    static var format: String { get }
    /// The value's string form.
    var wireString: String { get }
    /// Reads the string form; nil when `string` is not one.
    init?(wireString string: String)
}

extension FoundationValue {
    public static var valueType: ValueType { .formatted(.string, format: format) }
    public var jsonValue: JSONValue { .string(wireString) }
    public init(jsonValue: JSONValue) throws(ValueError) {
        guard case .string(let string) = jsonValue else { throw ValueError(expected: Self.valueType, found: jsonValue) }
        guard let value = Self(wireString: string) else {
            throw ValueError(expected: Self.valueType.description, found: Self.quoted(string))
        }
        self = value
    }

    public var customJSONValue: JSONValue { jsonValue }
    public static func fromCustomJSONValue(_ json: JSONValue) throws -> Self { try Self(jsonValue: json) }

    private static func quoted(_ string: String) -> String {
        string.count > 40 ? "\"\(string.prefix(40))…\"" : "\"\(string)\""
    }
}

/// ISO 8601 in UTC with milliseconds (`2026-11-25T09:30:00.250Z`); read with or without fractional
/// seconds, in any offset (`+01:00`). Sub-millisecond parts are not kept.
extension Date: FoundationValue {
    static var format: String { "date-time" }
    private static let withFraction = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let withoutFraction = Date.ISO8601FormatStyle()

    var wireString: String { Self.withFraction.format(self) }

    init?(wireString string: String) {
        if let date = try? Self.withFraction.parse(string) {
            self = date
        } else if let date = try? Self.withoutFraction.parse(string) {
            self = date
        } else {
            return nil
        }
    }
}

/// The canonical lowercase form (`0f8fad5b-d9cb-469f-a165-70867728950e`); any case is read.
extension UUID: FoundationValue {
    static var format: String { "uuid" }
    var wireString: String { uuidString.lowercased() }
    init?(wireString string: String) { self.init(uuidString: string) }
}

/// The absolute string (`https://example.com/a?b=c`).
extension URL: FoundationValue {
    static var format: String { "uri" }
    var wireString: String { absoluteString }
    init?(wireString string: String) {
        guard !string.isEmpty else { return nil }
        self.init(string: string)
    }
}

/// An exact decimal as a string (`"0.3"`, never `0.30000000000000004`); a JSON number is read too.
extension Decimal: FoundationValue {
    static var format: String { "decimal" }
    var wireString: String { description }
    init?(wireString string: String) {
        // Decimal(string:) reads the longest number at the start and ignores the rest ("12x" is 12,
        // "1,5" is 1): only a whole number is one.
        guard Self.isWholeNumber(string), let value = Decimal(string: string), !value.isNaN else { return nil }
        self = value
    }

    /// `-?digits(.digits)?([eE][+-]?digits)?`, with digits on at least one side of the point.
    static func isWholeNumber(_ string: String) -> Bool {
        var bytes = Substring(string).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissa = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissa += digits()
        }
        guard mantissa > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    public init(jsonValue: JSONValue) throws(ValueError) {
        switch jsonValue {
        case .int(let value): self = Decimal(value)
        // The shortest form that reads back as the same double: 0.1 is 0.1, not 0.1000000000000000055.
        case .double(let value) where value.isFinite: self = Decimal(string: "\(value)") ?? Decimal(value)
        case .string(let string):
            guard let value = Decimal(wireString: string) else {
                throw ValueError(expected: Self.valueType.description, found: "\"\(string.prefix(40))\"")
            }
            self = value
        default: throw ValueError(expected: Self.valueType, found: jsonValue)
        }
    }
}

/// Base64 (standard alphabet, padded).
extension Data: FoundationValue {
    static var format: String { "byte" }
    var wireString: String { base64EncodedString() }
    init?(wireString string: String) { self.init(base64Encoded: string) }
}
