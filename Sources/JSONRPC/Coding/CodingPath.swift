/// The coding path to a value, kept as a linked list from the value back to the root.
///
/// Every member and element the coders visit extends the path, so extending must be cheap; the
/// `[any CodingKey]` array that `Encoder` and `Decoder` expose is only built when asked for, which in
/// practice means when an error is thrown.
enum CodingPathNode {
    case root
    indirect case key(any CodingKey, parent: CodingPathNode)
    indirect case index(Int, parent: CodingPathNode)

    func appending(_ key: some CodingKey) -> CodingPathNode { .key(key, parent: self) }

    func appending(index: Int) -> CodingPathNode { .index(index, parent: self) }

    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root:
                return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(IndexCodingKey(index))
                node = parent
            }
        }
    }
}

/// The key of an array element, named like Foundation's so that paths print alike from either coder.
struct IndexCodingKey: CodingKey {
    let index: Int

    init(_ index: Int) { self.index = index }
    init?(intValue: Int) { index = intValue }
    init?(stringValue: String) { nil }

    var intValue: Int? { index }
    var stringValue: String { "Index \(index)" }
}

/// A member name that no `CodingKeys` declares: dictionary keys, and the "super" of `superEncoder()`.
struct StringCodingKey: CodingKey {
    let stringValue: String

    init(_ stringValue: String) { self.stringValue = stringValue }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    var intValue: Int? { nil }
}

/// Renders a coding path the way someone reading the JSON would write it: `items[2].name`,
/// `labels["first name"]`. The root is the empty string.
func describeCodingPath(_ path: [any CodingKey]) -> String {
    var text = ""
    for key in path {
        if let index = key.intValue, key is IndexCodingKey || key.stringValue == "Index \(index)" {
            text += "[\(index)]"
        } else if isPlainMemberName(key.stringValue) {
            if !text.isEmpty { text += "." }
            text += key.stringValue
        } else {
            text += "[" + quoted(key.stringValue) + "]"
        }
    }
    return text
}

/// ` at "user.firstName"`, or nothing at the root: the phrase every error message here uses for its place.
///
/// ``Swift/DecodingError/summary`` looks for exactly this phrase to move it to the front of the line.
func locationPhrase(_ path: [any CodingKey]) -> String {
    path.isEmpty ? "" : " at " + quoted(describeCodingPath(path))
}

func locationPhrase(_ path: CodingPathNode) -> String {
    if case .root = path { return "" }
    return locationPhrase(path.keys)
}

private func isPlainMemberName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.allSatisfy { byte in
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "$"):
            true
        default:
            false
        }
    }
}

private func quoted(_ text: String) -> String {
    var result = "\""
    for character in text {
        if character == "\"" || character == "\\" { result.append("\\") }
        result.append(character)
    }
    result.append("\"")
    return result
}

extension DecodingError {
    /// The error on one line, led by where it happened:
    /// `at user.firstName: expected a string, found a number`.
    ///
    /// Meant for JSON-RPC error messages. ``JSONValueDecoder`` already names the place in `debugDescription`;
    /// that mention is moved to the front rather than repeated. Errors from elsewhere get the path prefixed.
    public var summary: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            summarize(context.codingPath, context.debugDescription)
        @unknown default:
            String(describing: self)
        }
    }
}

extension EncodingError {
    /// The error on one line, led by where it happened: `at stats.ratio: nan is not a valid JSON number`.
    public var summary: String {
        switch self {
        case .invalidValue(_, let context):
            summarize(context.codingPath, context.debugDescription)
        @unknown default:
            String(describing: self)
        }
    }
}

private func summarize(_ path: [any CodingKey], _ description: String) -> String {
    guard !path.isEmpty else { return description }
    return "at \(describeCodingPath(path)): " + removingFirst(locationPhrase(path), from: description)
}

/// `text` without the first occurrence of `part`. Spelled out because `replacing(_:with:)` needs recent
/// Apple OSes and `range(of:)` needs Foundation.
private func removingFirst(_ part: String, from text: String) -> String {
    var start = text.startIndex
    while start < text.endIndex {
        if text[start...].hasPrefix(part) {
            return String(text[..<start]) + text[text.index(start, offsetBy: part.count)...]
        }
        start = text.index(after: start)
    }
    return text
}
