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
        parts.flatMap { $0 }
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
    func isUpper(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") }
    func isLower(_ index: Int) -> Bool { index < bytes.count && bytes[index] >= UInt8(ascii: "a") && bytes[index] <= UInt8(ascii: "z") }
    var label: [UInt8] = []
    label.reserveCapacity(bytes.count + 4)
    var index = 0
    while index < bytes.count {
        var run = index
        while isUpper(run) { run += 1 }
        if run - index > 1 {
            // An acronym, kept as it is: "ID", a plural "IDs", or "URL" of "URLString", whose last
            // capital starts the next word.
            var end = run
            if isLower(run) {
                if bytes[run] == UInt8(ascii: "s"), !isLower(run + 1) { end = run + 1 } else { end = run - 1 }
            }
            if !label.isEmpty { label.append(UInt8(ascii: " ")) }
            label += bytes[index..<end]
            index = end
            continue
        }
        let byte = bytes[index]
        if isUpper(index), !label.isEmpty { label.append(UInt8(ascii: " ")) }
        label.append(isUpper(index) ? byte + 32 : byte)
        index += 1
    }
    if let first = label.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") { label[0] = first - 32 }
    return String(decoding: label, as: UTF8.self)
}

func unicodeLabel(for name: String) -> String {
    // The same rule as `defaultLabel(for:)`'s ASCII path, by Characters.
    let characters = Array(name)
    func isUpper(_ index: Int) -> Bool { index < characters.count && characters[index].isUppercase }
    func isLower(_ index: Int) -> Bool { index < characters.count && characters[index].isLowercase }
    var words: [String] = []
    var current = ""
    var index = 0
    while index < characters.count {
        var run = index
        while isUpper(run) { run += 1 }
        if run - index > 1 {
            var end = run
            if isLower(run) {
                if characters[run] == "s", !isLower(run + 1) { end = run + 1 } else { end = run - 1 }
            }
            if !current.isEmpty { words.append(current) }
            words.append(String(characters[index..<end]))
            current = ""
            index = end
            continue
        }
        if isUpper(index), !current.isEmpty || !words.isEmpty {
            if !current.isEmpty { words.append(current) }
            current = ""
        }
        current.append(isUpper(index) ? Character(characters[index].lowercased()) : characters[index])
        index += 1
    }
    if !current.isEmpty { words.append(current) }
    let sentence = words.joined(separator: " ")
    return sentence.prefix(1).uppercased() + sentence.dropFirst()
}
