import Bindery

/// The `display` capability: values' one-line text for faces that draw it, and a person's `text`
/// read with the type's own grammar (``ValueText``; protocol.md, "Display and text").
extension Server {
    /// The value a `setField` carries: its `value`, or its `text` read as the field's type. Text
    /// that cannot be read, or that reads as a value the field refuses, is `-32602` with
    /// `{field, text, expected}`, and nothing is written.
    func fieldValue(_ params: Params, _ session: Session, field: String) throws(RPCError) -> (value: JSONValue, text: String?) {
        // One lookup on the hot path: a write with a value.
        if let value = params["value"] { return (value, nil) }
        guard case .string(let text)? = params["text"] else { return (try params.value("value"), nil) }
        guard let type = session.type.valueType(ofMember: field) else {
            throw .session(session, .unknownField(field, known: session.type.memberNames))
        }
        do {
            return (try ValueText.read(text, as: type), text)
        } catch {
            throw Self.unreadableText(text, expected: error.expected, reason: error.reason, naming: ("field", field))
        }
    }

    /// The arguments an `invoke` carries: its `args`, or its `text` read as the command's argument type.
    func commandArguments(_ params: Params, _ session: Session, command: String) throws(RPCError) -> (value: JSONValue?, text: String?) {
        if let arguments = params["args"] { return (arguments, nil) }
        guard case .string(let text)? = params["text"] else { return (nil, nil) }
        guard session.type.commandNames.contains(command) else {
            throw .session(session, .unknownCommand(command, known: session.type.commandNames))
        }
        guard let type = session.type.argumentsType(ofCommand: command) else {
            throw Self.unreadableText(text, expected: "no argument", reason: "\(command) takes none", naming: ("command", command))
        }
        do {
            return (try ValueText.read(text, as: type), text)
        } catch {
            throw Self.unreadableText(text, expected: error.expected, reason: error.reason, naming: ("command", command))
        }
    }

    /// Text read as a value the field or command then refused (a date that is no date): the same
    /// error as unreadable text.
    static func refusedText(_ text: String, _ error: SessionError, in session: Session) -> RPCError? {
        switch error {
        case .wrongValueType(let field, let problem):
            let expected = session.type.valueType(ofMember: field).map(ValueText.expected) ?? problem.expected
            return unreadableText(text, expected: expected, reason: problem.description, naming: ("field", field))
        case .invalidArguments(let command, let problem):
            let expected = session.type.argumentsType(ofCommand: command).map(ValueText.expected) ?? problem.expected
            return unreadableText(text, expected: expected, reason: problem.description, naming: ("command", command))
        default:
            return nil
        }
    }

    static func unreadableText(_ text: String, expected: String, reason: String, naming: (key: String, name: String)) -> RPCError {
        RPCError(.invalidParams, "Invalid params: cannot read \(JSONWriter.string(.string(text))) for \(naming.key) "
                 + "\"\(naming.name)\": expected \(expected) (\(reason))",
                 data: [naming.key: .string(naming.name), "text": .string(text), "expected": .string(expected)])
    }

    /// `result` (an open, state or observe result) with `display` for its state, and each child
    /// entry's, when this client asked for display.
    func addingDisplay(to result: inout JSONObject, of session: Session) {
        guard wantsDisplay else { return }
        if case .object(let state)? = result["state"] {
            result.append("display", .object(session.type.display(of: state)))
        }
        if case .object(let children)? = result["children"] {
            result = result.replacing("children", with: .object(hub.addingDisplay(toChildren: children)))
        }
    }
}

extension SessionHub {
    /// A `children` object whose every entry `{type, revision, state}` also carries its `display`.
    func addingDisplay(toChildren children: JSONObject) -> JSONObject {
        JSONObject(children.members.map { member in
            guard case .object(var entry) = member.value, case .object(let state)? = entry["state"],
                  let id = Int(member.key), let child = table.session(id) else { return member }
            entry.append("display", .object(child.type.display(of: state)))
            return (key: member.key, value: .object(entry))
        })
    }
}

extension JSONObject {
    /// This object with member `key`'s value replaced, in place.
    func replacing(_ key: String, with value: JSONValue) -> JSONObject {
        JSONObject(members.map { $0.key == key ? (key: key, value: value) : $0 })
    }
}
