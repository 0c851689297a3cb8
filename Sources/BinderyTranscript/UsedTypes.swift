import JSONRPC

/// The view model types a transcript uses — opened with `session/open`, or reached as children
/// (a `children` entry's `type`) — and the rule a replay compares `initialize`'s `viewModels` by:
/// as a set keyed by `type`, only the used types. A type the transcript never touched, and the
/// order the registry lists types in, are nothing the client acted on; a used type's schema still
/// counts, member by member (`result.viewModels.login.fields[0].label`).
struct UsedTypes {
    private(set) var names: Set<String> = []

    init(_ transcript: Transcript) {
        for message in transcript.messages {
            guard let value = try? JSONParser.parse(message.body) else { continue }
            switch message.direction {
            case .sent:
                for element in value.arrayValue ?? [value] where element["method"]?.stringValue == "session/open" {
                    if let type = element["params"]?["type"]?.stringValue { names.insert(type) }
                }
            case .received:
                noteChildren(in: value)
            }
        }
    }

    /// Every `children` entry's `type`, at any depth (an answer's, a `didChange`'s, a child's own).
    private mutating func noteChildren(in value: JSONValue) {
        switch value {
        case .array(let elements):
            for element in elements { noteChildren(in: element) }
        case .object(let object):
            for (key, member) in object.members {
                if key == "children", let entries = member.objectValue {
                    for (_, entry) in entries.members {
                        if let type = entry["type"]?.stringValue { names.insert(type) }
                    }
                }
                noteChildren(in: member)
            }
        default:
            break
        }
    }

    /// An `initialize` answer with its `result.viewModels` made an object keyed by `type`, holding
    /// only the used types; any other message unchanged.
    func comparable(initializeAnswer message: JSONValue) -> JSONValue {
        guard var answer = message.objectValue, var result = answer["result"]?.objectValue,
              let schemas = result["viewModels"]?.arrayValue else { return message }
        var byType: [(key: String, value: JSONValue)] = []
        for schema in schemas {
            guard let type = schema["type"]?.stringValue, names.contains(type) else { continue }
            byType.append((type, schema))
        }
        result["viewModels"] = .object(JSONObject(byType))
        answer["result"] = .object(result)
        return .object(answer)
    }
}
