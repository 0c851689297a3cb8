import JSONRPC

/// The compiler's diagnostics read out of `swift build`'s output, as `daemon/buildFailed` sends them.
///
/// A diagnostic is a line `FILE:LINE:COLUMN: SEVERITY: MESSAGE` (severity `error` or `warning`;
/// notes are left out); the same one printed twice (the driver repeats some) is sent once. A build
/// that failed without any such line (a linker error, a bad manifest) is reported as one error with
/// no place (`file` null, `line` and `column` 0) whose message is the output's `error:` lines, or
/// its last lines.
enum BuildDiagnostics {
    struct Diagnostic: Hashable {
        var file: String?
        var line: Int
        var column: Int
        var severity: String
        var message: String

        var json: JSONValue {
            ["file": file.map { .string($0) } ?? .null, "line": .int(line), "column": .int(column),
             "severity": .string(severity), "message": .string(message)]
        }
    }

    static func parse(_ output: String) -> [Diagnostic] {
        var seen: Set<Diagnostic> = []
        var diagnostics: [Diagnostic] = []
        for line in output.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let diagnostic = parseLine(Substring(line)), seen.insert(diagnostic).inserted else { continue }
            diagnostics.append(diagnostic)
        }
        return diagnostics
    }

    /// The diagnostics of a build that failed: at least one error.
    static func forFailedBuild(_ output: String) -> [Diagnostic] {
        let diagnostics = parse(output)
        if diagnostics.contains(where: { $0.severity == "error" }) { return diagnostics }
        let lines = output.split(separator: "\n").map(String.init)
        let errors = lines.filter { $0.contains("error:") }
        let message = (errors.isEmpty ? Array(lines.suffix(20)) : errors).joined(separator: "\n")
        return diagnostics + [Diagnostic(file: nil, line: 0, column: 0, severity: "error",
                                         message: message.isEmpty ? "the build failed" : message)]
    }

    /// `FILE:LINE:COLUMN: SEVERITY: MESSAGE`, or nil.
    static func parseLine(_ line: Substring) -> Diagnostic? {
        for severity in ["error", "warning"] {
            guard let marker = line.firstRange(of: ": \(severity): ") else { continue }
            let place = line[..<marker.lowerBound].split(separator: ":", omittingEmptySubsequences: false)
            guard place.count >= 3, let lineNumber = Int(place[place.count - 2]),
                  let column = Int(place[place.count - 1]) else { continue }
            let file = place[..<(place.count - 2)].joined(separator: ":").trimmingWhitespace()
            guard !file.isEmpty else { continue }
            return Diagnostic(file: file, line: lineNumber, column: column, severity: severity,
                              message: String(line[marker.upperBound...]))
        }
        return nil
    }
}
