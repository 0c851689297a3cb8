/// Checks an exposure when its type is registered, and stops the daemon with every line Bindery
/// cannot serve, each naming its member, its Swift type and what that type lacks — not only the
/// first. (What Swift can catch — a `Field` on a `let` — is a compile error instead.)
@MainActor
enum ExposureProblems {
    static func check<Model: AnyObject>(_ exposure: Exposure<Model>, of type: Any.Type, registeredAs name: String) {
        let problems = list(exposure)
        guard !problems.isEmpty else { return }
        fatalError(message(problems, of: type, registeredAs: name))
    }

    static func list<Model: AnyObject>(_ exposure: Exposure<Model>) -> [String] {
        var problems: [String] = []
        for property in exposure.properties {
            if let problem = property.problem { problems.append("\(property.isWritable ? "Field" : "Output")(\"\(property.name)\"): \(problem)") }
        }
        for command in exposure.commands {
            if let problem = command.problem { problems.append("Command(\"\(command.name)\"): \(problem)") }
        }
        // A list, not a Set: a type has a few members, and the first Set<String> of a run makes the
        // runtime check String: Hashable, a search of every conformance record at start-up.
        var seen: [String] = []
        for name in exposure.properties.map(\.name) + exposure.commands.map(\.name) {
            if seen.contains(name) { problems.append("\"\(name)\" is declared twice") } else { seen.append(name) }
        }
        return problems
    }

    static func message(_ problems: [String], of type: Any.Type, registeredAs name: String) -> String {
        "the exposure of \(type) (registered as \"\(name)\") has \(problems.count) line\(problems.count == 1 ? "" : "s") Bindery cannot serve:\n"
            + problems.map { "  \($0)" }.joined(separator: "\n")
    }
}
