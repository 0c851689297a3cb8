/// The types of a view model's members and commands' arguments, for ``ValueText``: what a session's
/// values display as, and how a person's text for a field or a command is read.
extension ViewModelType {
    /// The type of member `name` (a field, an output, or a command's `.enabled`/`.running`).
    public func valueType(ofMember name: String) -> ValueType? {
        guard let index = memberIndex(named: name) else { return nil }
        switch members[index] {
        case .property(let property): return properties[property].valueType
        case .enabled, .running: return .bool
        }
    }

    /// The type of command `name`'s argument; nil for an unknown command or one that takes none.
    public func argumentsType(ofCommand name: String) -> ValueType? {
        commandIndex(named: name).flatMap { commands[$0].argumentsType }
    }

    /// `display` for a state or a change set of this type: the text of each member in `values` that
    /// a face does not show as it is (see ``ValueText/display(_:as:)``), in the same order.
    public func display(of values: JSONObject) -> JSONObject {
        var display = JSONObject()
        for member in values.members {
            guard let type = valueType(ofMember: member.key), let text = ValueText.display(member.value, as: type) else { continue }
            display.append(member.key, .string(text))
        }
        return display
    }
}
