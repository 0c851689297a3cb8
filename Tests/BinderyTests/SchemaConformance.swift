@testable import Bindery

/// What is wrong with `json` as a value of `type`: every place where the schema describes
/// something other than what is sent (a member missing from the schema, one the schema requires and
/// the value lacks, an element or payload of another type). Empty when the schema is exact for it.
func schemaProblems(_ json: JSONValue, _ type: ValueType, at path: String = "$") -> [String] {
    if case .optional(let inner) = type { return json == .null ? [] : schemaProblems(json, inner, at: path) }
    switch (type, json) {
    case (.any, _), (.viewModel, _):
        return []
    case (.formatted(let base, _), _):
        return schemaProblems(json, base, at: path)
    case (.string, .string), (.bool, .bool), (.integer, .int), (.number, .int), (.number, .double):
        return []
    case (.enumeration(let cases), .string(let name)):
        return cases.contains(name) ? [] : ["\(path): \"\(name)\" is not one of the schema's cases \(cases)"]
    case (.array(let element), .array(let items)), (.set(let element), .array(let items)):
        return items.enumerated().flatMap { schemaProblems($0.element, element, at: "\(path)[\($0.offset)]") }
    case (.dictionary(let value), .object(let members)):
        return members.members.flatMap { schemaProblems($0.value, value, at: "\(path).\($0.key)") }
    case (.object(_, let members), .object(let object)):
        return memberProblems(object, members, at: path)
    case (.union(_, let cases), .object(let object)):
        guard case .string(let name)? = object["case"], let chosen = cases.first(where: { $0.name == name }) else {
            return ["\(path): no case of the schema's \(cases.map(\.name)) in \(object)"]
        }
        var rest = JSONObject()
        for member in object.members where member.key != "case" { rest.append(member.key, member.value) }
        return memberProblems(rest, chosen.members, at: "\(path){\(name)}")
    default:
        return ["\(path): the schema says \(type), the value is \(json)"]
    }
}

private func memberProblems(_ object: JSONObject, _ members: [ValueType.Member], at path: String) -> [String] {
    var problems: [String] = []
    for member in object.members {
        guard let described = members.first(where: { $0.name == member.key }) else {
            problems.append("\(path).\(member.key): sent, but not in the schema's members \(members.map(\.name))")
            continue
        }
        problems += schemaProblems(member.value, described.type, at: "\(path).\(member.key)")
    }
    for member in members where !member.isOptional && object[member.name] == nil {
        problems.append("\(path).\(member.name): required by the schema, not sent")
    }
    return problems
}
