import JSONRPC

/// One way a replay differed from its transcript, described for a person: which step (its number
/// among the transcript's messages and its line), the request that led to it, and what differs,
/// member by member.
public struct Mismatch: Sendable, CustomStringConvertible {
    public enum Kind: Sendable {
        /// The daemon wrote a message other than the one recorded.
        case differs([JSONDifference])
        /// The daemon wrote something that is not JSON where a message was recorded.
        case notJSON(String)
        /// The daemon wrote nothing more where a message was recorded.
        case missing
        /// The daemon wrote more than was recorded, after the last step.
        case unexpected(String)
        /// The daemon ended with another exit code (nil: it did not end).
        case exitCode(expected: Int32, actual: Int32?)
    }

    public var kind: Kind
    /// The step's number among the transcript's messages (from 1), 0 after the last.
    public var step: Int
    /// Its line in the file, 0 if unknown.
    public var line: Int
    /// The request that led to it, described: "request 2 setField {…}".
    public var cause: String?
    /// The message recorded there, as JSON text.
    public var expected: String?

    public var description: String {
        let place = step == 0 ? "after the last step" : "step \(step)" + (line > 0 ? " (line \(line))" : "")
        let why = cause.map { ", \($0)" } ?? ""
        switch kind {
        case .differs(let differences):
            let shown = differences.prefix(Self.shownDifferences).map { "  \($0)" }
            let more = differences.count > Self.shownDifferences ? ["  … and \(differences.count - Self.shownDifferences) more"] : []
            return (["\(place)\(why):"] + shown + more).joined(separator: "\n")
        case .notJSON(let text):
            return "\(place)\(why): the daemon wrote text that is not JSON: \(text)\n  expected \(expected ?? "")"
        case .missing:
            return "\(place)\(why): expected \(expected ?? "a message"), but the daemon wrote nothing more"
        case .unexpected(let text):
            return "\(place): the daemon wrote more than was recorded: \(text)"
        case .exitCode(let expected, let actual):
            return "at the end: exit code \(actual.map(String.init) ?? "none (it did not end)"), expected \(expected)"
        }
    }

    /// Differences listed per message; more are counted.
    static let shownDifferences = 8
}

/// A whole replay's outcome, as a failure message reads it.
public struct ReplayReport: Sendable, CustomStringConvertible {
    public var transcript: String
    public var mismatches: [Mismatch]
    /// The daemon's stderr tail, for a daemon that ended or hung.
    public var sideNotes = ""

    public var passed: Bool { mismatches.isEmpty }

    public var description: String {
        guard !passed else { return "\(transcript): replayed" }
        let shown = mismatches.prefix(Self.shownMismatches).map(\.description)
        let more = mismatches.count > Self.shownMismatches
            ? ["… and \(mismatches.count - Self.shownMismatches) more steps differ (often the first difference shifts the rest)"] : []
        let notes = sideNotes.isEmpty ? [] : ["the daemon's stderr ended with:\n" + sideNotes]
        let count = mismatches.count == 1 ? "1 step differs" : "\(mismatches.count) steps differ"
        return (["\(transcript): the daemon no longer says what was recorded (\(count))"] + shown + more + notes)
            .joined(separator: "\n")
    }

    static let shownMismatches = 3
}
