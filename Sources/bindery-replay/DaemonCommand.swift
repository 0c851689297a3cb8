/// How `--daemon` names the daemon it runs: `NAME=CMD` says so; a bare `CMD` is named after its
/// program's file name (`.build/debug/binderyd` runs binderyd's transcripts), since a transcript's
/// header names the daemon it was recorded from.
enum DaemonCommand {
    static func split(_ value: String) -> (name: String, command: String) {
        if let equals = value.firstIndex(of: "="),
           !value[..<equals].isEmpty, !value[..<equals].contains(where: { $0 == " " || $0 == "/" }) {
            return (String(value[..<equals]), String(value[value.index(after: equals)...]))
        }
        let program = value.split(separator: " ").first.map(String.init) ?? value
        return (String(program.split(separator: "/").last ?? Substring(program)), value)
    }
}
