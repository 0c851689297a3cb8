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

/// "firstName" -> "First name": the label a generic form shows when the declaration gives none.
func defaultLabel(for name: String) -> String {
    guard name.utf8.allSatisfy({ $0 < 0x80 }) else { return unicodeLabel(for: name) }
    // ASCII (every name in practice) byte by byte: Character's case properties load Unicode tables,
    // a measurable part of the daemon's start-up.
    var label: [UInt8] = []
    label.reserveCapacity(name.utf8.count + 4)
    for byte in name.utf8 {
        let isUppercase = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")
        if isUppercase, !label.isEmpty { label.append(UInt8(ascii: " ")) }
        label.append(isUppercase ? byte + 32 : byte)
    }
    if let first = label.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") { label[0] = first - 32 }
    return String(decoding: label, as: UTF8.self)
}

func unicodeLabel(for name: String) -> String {
    var words: [String] = []
    var current = ""
    for character in name {
        if character.isUppercase, !current.isEmpty {
            words.append(current)
            current = ""
        }
        current.append(character)
    }
    if !current.isEmpty { words.append(current) }
    let sentence = words.map { $0.lowercased() }.joined(separator: " ")
    return sentence.prefix(1).uppercased() + sentence.dropFirst()
}
