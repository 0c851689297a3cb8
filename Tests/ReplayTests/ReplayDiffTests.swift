import BinderyServer
import Foundation
import JSONRPC
import SeedViewModels
import Testing
@testable import BinderyTesting

/// What a replay that differs says, and what it does not count as a difference.
@MainActor @Suite struct ReplayDiffTests {
    static let email = """
        {"framing":"ndjson"}
        {"in":{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email"}}}
        {"out":{"jsonrpc":"2.0","id":1,"result":{"session":1,"revision":0,"state":{"email":"","isValid":false,"validationMessage":"Email is invalid"}}}}
        {"in":{"jsonrpc":"2.0","id":2,"method":"setField","params":{"session":1,"field":"email","value":"ada@example.com"}}}
        {"out":{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":1,"changes":{"isValid":true,"validationMessage":"Email is valid"},"cause":2}}}
        {"out":{"jsonrpc":"2.0","id":2,"result":{"revision":1}}}

        """

    static var seeds: ViewModelRegistry {
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        return registry
    }

    static func transcript(_ text: String) throws -> Transcript {
        try Transcript(jsonLines: Array(text.utf8), path: "/tmp/email.jsonl")
    }

    @Test func aRecordingReplays() async throws {
        let report = try await Self.transcript(Self.email).report(against: Self.seeds)
        #expect(report.passed, "\(report)")
    }

    @Test func memberOrderWhiteSpaceAndNumberSpellingDoNotCount() async throws {
        let text = Self.email
            .replacingOccurrences(of: #"{"session":1,"revision":1,"changes":{"isValid":true,"validationMessage":"Email is valid"},"cause":2}"#,
                                  with: #"{ "cause": 2.0, "changes": { "validationMessage": "Email is valid", "isValid": true }, "revision": 1e0, "session": 1 }"#)
        #expect(text != Self.email)
        let report = try await Self.transcript(text).report(against: Self.seeds)
        #expect(report.passed, "\(report)")
    }

    @Test func aDifferenceNamesTheStepTheRequestAndTheMember() async throws {
        let text = Self.email.replacingOccurrences(of: #""validationMessage":"Email is valid""#,
                                                   with: #""validationMessage":"Looks good""#)
        let report = try await Self.transcript(text).report(against: Self.seeds)
        #expect("\(report)" == """
            email.jsonl: the daemon no longer says what was recorded (1 step differs)
            step 4 (line 5), didChange caused by request 2 setField {"session":1,"field":"email","value":"ada@example.com"}:
              params.changes.validationMessage: expected "Looks good", actual "Email is valid"
            """)
    }

    @Test func aMissingAndAnExtraMemberAreNamed() async throws {
        let text = Self.email.replacingOccurrences(of: #""changes":{"isValid":true,"#, with: #""changes":{"isValidated":true,"#)
        let report = try await Self.transcript(text).report(against: Self.seeds)
        let lines = "\(report)".split(separator: "\n").dropFirst(2)
        #expect(lines == ["  params.changes.isValidated: expected true, actual (absent)",
                          "  params.changes.isValid: expected (absent), actual true"])
    }

    @Test func aMessageTooFewIsReported() async throws {
        let text = Self.email + #"{"out":{"jsonrpc":"2.0","id":3,"result":null}}"# + "\n"
        let report = try await Self.transcript(text).report(against: Self.seeds)
        #expect("\(report)".contains(#"step 6 (line 7), a message after request 2 setField {"session":1,"field":"email","value":"ada@example.com"}: expected {"jsonrpc":"2.0","id":3,"result":null}, but the daemon wrote nothing more"#), "\(report)")
    }

    @Test func keysThatAreNotNamesAreQuoted() {
        let differences = JSONDifference.between(expected: ["state": ["login.enabled": true, "rows": [1, 2]]],
                                                 actual: ["state": ["login.enabled": false, "rows": [1]]])
        #expect(differences.map(\.description) == [#"state["login.enabled"]: expected true, actual false"#,
                                                   "state.rows[1]: expected 2, actual (absent)"])
    }

    /// Record mode rewrites the `out` lines from what the daemon says now, keeps the `in` lines, and
    /// says so (the test fails once); the rewritten transcript then replays.
    @Test func recordModeRewritesTheTranscriptAndSaysSo() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-\(UUID()).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let stale = Self.email.replacingOccurrences(of: "Email is valid", with: "Looks good")
        try stale.write(toFile: path, atomically: true, encoding: .utf8)
        try await withKnownIssue {
            try await Transcript(contentsOf: path).replay(Self.seeds, serverInfo: nil, recording: true, sourceLocation: #_sourceLocation)
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("recorded \(path) again (BINDERY_RECORD)") }
        }
        let rewritten = try String(contentsOfFile: path, encoding: .utf8)
        #expect(rewritten.contains("Email is valid") && !rewritten.contains("Looks good"))
        #expect(rewritten.split(separator: "\n").count == Self.email.split(separator: "\n").count)
        let report = try await Transcript(contentsOf: path).report(against: Self.seeds)
        #expect(report.passed, "\(report)")
        // Record mode leaves a transcript that replays as it is untouched, and passes.
        try await Transcript(contentsOf: path).replay(Self.seeds, serverInfo: nil, recording: true, sourceLocation: #_sourceLocation)
    }
}
