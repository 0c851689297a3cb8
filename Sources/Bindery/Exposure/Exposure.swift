/// What a view model exposes to clients: its fields, outputs and commands, in display order.
///
/// Built with a result builder of ``Field``, ``Output`` and ``Command`` declarations:
///
/// ```swift
/// Exposure {
///     Field("title", \.title)
///     Output("canSave", \.canSave)
///     Command("save", enabled: \.canSave) { $0.save() }
/// }
/// ```
@MainActor
public struct Exposure<Model: AnyObject> {
    let properties: [ExposedProperty]
    let commands: [ExposedCommand]

    public init(@ExposureBuilder<Model> _ declarations: () -> [ExposureDeclaration<Model>]) {
        var properties: [ExposedProperty] = []
        var commands: [ExposedCommand] = []
        for declaration in declarations() {
            switch declaration.item {
            case .property(let property): properties.append(property)
            case .command(let command): commands.append(command)
            }
        }
        self.properties = properties
        self.commands = commands
    }
}

/// One line of an ``Exposure``: a field, an output or a command, with its types erased.
@MainActor
public struct ExposureDeclaration<Model: AnyObject> {
    enum Item {
        case property(ExposedProperty)
        case command(ExposedCommand)
    }
    let item: Item
}

@MainActor
@resultBuilder
public enum ExposureBuilder<Model: AnyObject> {
    public static func buildExpression(_ field: Field<Model>) -> [ExposureDeclaration<Model>] {
        [ExposureDeclaration(item: .property(field.property))]
    }

    public static func buildExpression(_ output: Output<Model>) -> [ExposureDeclaration<Model>] {
        [ExposureDeclaration(item: .property(output.property))]
    }

    public static func buildExpression(_ command: Command<Model>) -> [ExposureDeclaration<Model>] {
        [ExposureDeclaration(item: .command(command.command))]
    }

    public static func buildBlock(_ parts: [ExposureDeclaration<Model>]...) -> [ExposureDeclaration<Model>] {
        // By index, not `flatMap`: unspecialized (Model is generic here), flatMap looked up
        // Sequence's associated types at run time, a twentieth of the daemon's start-up.
        var all: [ExposureDeclaration<Model>] = []
        for part in parts.indices {
            for index in parts[part].indices { all.append(parts[part][index]) }
        }
        return all
    }

    public static func buildOptional(_ part: [ExposureDeclaration<Model>]?) -> [ExposureDeclaration<Model>] {
        part ?? []
    }

    public static func buildEither(first part: [ExposureDeclaration<Model>]) -> [ExposureDeclaration<Model>] { part }
    public static func buildEither(second part: [ExposureDeclaration<Model>]) -> [ExposureDeclaration<Model>] { part }
}

/// "firstName" -> "First name", "placedOrderID" -> "Placed order ID", "favoriteIDs" -> "Favorite
/// IDs", "urlString" -> "Url string": the label a generic form shows when the declaration gives none.
/// A run of capitals is one word, kept as it is (an acronym).
func defaultLabel(for name: String) -> String {
    guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return unicodeLabel(for: name) }
    // ASCII (every name in practice) byte by byte: Character's case properties load Unicode tables,
    // a measurable part of the daemon's start-up.
    let bytes = Array(name.utf8)
    func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    var label: [UInt8] = []
    label.reserveCapacity(bytes.count + 4)
    for word in labelWords(bytes, isUpper: isUpper, isLower: isLower, isS: { $0 == UInt8(ascii: "s") }) {
        if !label.isEmpty { label.append(UInt8(ascii: " ")) }
        label += word.isAcronym ? bytes[word.start..<word.end] : bytes[word.start..<word.end].map { isUpper($0) ? $0 + 32 : $0 }[...]
    }
    if let first = label.first, isLower(first) { label[0] = first - 32 }
    return String(decoding: label, as: UTF8.self)
}

/// ``defaultLabel(for:)`` for a name that is not ASCII: the same rule, by Characters.
func unicodeLabel(for name: String) -> String {
    let characters = Array(name)
    let words = labelWords(characters, isUpper: \.isUppercase, isLower: \.isLowercase, isS: { $0 == "s" }).map { word in
        word.isAcronym ? String(characters[word.start..<word.end]) : characters[word.start..<word.end].map { $0.lowercased() }.joined()
    }
    let sentence = words.joined(separator: " ")
    return sentence.prefix(1).uppercased() + sentence.dropFirst()
}

/// One word of a name: elements `start..<end`. Two Ints, not a `Range<Int>`: an array of ranges
/// makes the runtime check `Int: Comparable` at start-up, a search of every conformance record.
private struct LabelWord {
    let start: Int
    let end: Int
    let isAcronym: Bool
}

/// The words of a camel-case name: a capital starts a word; a run of capitals is one word (an
/// acronym, kept as it is: "ID", a plural "IDs", or "URL" of "URLString", whose last capital
/// starts the next word).
private func labelWords<Element>(_ elements: [Element], isUpper: (Element) -> Bool, isLower: (Element) -> Bool,
                                 isS: (Element) -> Bool) -> [LabelWord] {
    func upper(_ index: Int) -> Bool { index < elements.count && isUpper(elements[index]) }
    func lower(_ index: Int) -> Bool { index < elements.count && isLower(elements[index]) }
    var words: [LabelWord] = []
    var start = 0, index = 0
    while index < elements.count {
        var run = index
        while upper(run) { run += 1 }
        if run - index > 1 {
            var end = run
            if lower(run) { end = isS(elements[run]) && !lower(run + 1) ? run + 1 : run - 1 }
            if start < index { words.append(LabelWord(start: start, end: index, isAcronym: false)) }
            words.append(LabelWord(start: index, end: end, isAcronym: true))
            start = end
            index = end
            continue
        }
        if upper(index), start < index {
            words.append(LabelWord(start: start, end: index, isAcronym: false))
            start = index
        }
        index += 1
    }
    if start < elements.count { words.append(LabelWord(start: start, end: elements.count, isAcronym: false)) }
    return words
}
