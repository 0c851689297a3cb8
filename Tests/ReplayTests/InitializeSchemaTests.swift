import BinderyServer
import Foundation
import JSONRPC
import SeedViewModels
import Testing
@testable import BinderyTesting

/// `initialize` lists every registered type's schema, in registration order; a replay counts only
/// the types the transcript uses (protocol.md, "Replaying"): a type added to the daemon, or the
/// registry's order, is nothing the client acted on; a used type's changed schema fails, named.
@MainActor @Suite struct InitializeSchemaTests {
    /// A face's recording: initialize, then an email form filled in.
    static let session = """
        {"framing":"ndjson"}
        {"in":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"splices":true}}}}
        {"in":{"jsonrpc":"2.0","id":2,"method":"session/open","params":{"type":"email"}}}
        {"in":{"jsonrpc":"2.0","id":3,"method":"setField","params":{"session":1,"field":"email","value":"ada@example.com"}}}

        """

    /// Two types, survey first: the registry the session was recorded with.
    static var small: ViewModelRegistry {
        var registry = ViewModelRegistry()
        registry.register("survey") { _ in SurveyViewModel() }
        registry.register("email") { _ in EmailViewModel() }
        return registry
    }

    /// Every seed type, email first: types added and the order changed.
    static var seeds: ViewModelRegistry {
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        return registry
    }

    static func recorded() async throws -> String {
        let inLines = try Transcript(jsonLines: Array(session.utf8), path: "/tmp/schemas.jsonl")
        let recorded = try await inLines.recorded(against: small)
        let text = String(decoding: recorded.jsonLines(), as: UTF8.self)
        #expect(text.contains(#""viewModels":[{"type":"survey""#), "\(text)")
        return text
    }

    static func report(_ text: String, against registry: ViewModelRegistry) async throws -> ReplayReport {
        try await Transcript(jsonLines: Array(text.utf8), path: "/tmp/schemas.jsonl").report(against: registry)
    }

    @Test func anAddedTypeAndAnotherOrderDoNotCount() async throws {
        let text = try await Self.recorded()
        let report = try await Self.report(text, against: Self.seeds)
        #expect(report.passed, "\(report)")
    }

    @Test func aTypeTheTranscriptNeverUsesDoesNotCount() async throws {
        let text = try await Self.recorded().replacingOccurrences(of: #""type":"survey""#, with: #""type":"questionnaire""#)
        let report = try await Self.report(text, against: Self.small)
        #expect(report.passed, "\(report)")
    }

    @Test func aUsedTypesChangedSchemaFailsNamingTheMember() async throws {
        let text = try await Self.recorded().replacingOccurrences(of: #""label":"Validation message""#, with: #""label":"Message""#)
        let report = try await Self.report(text, against: Self.seeds)
        #expect("\(report)".contains(#"result.viewModels.email.fields[2].label: expected "Message", actual "Validation message""#), "\(report)")
        // Record mode's comparison follows the same rule.
        let recorded = try await Transcript(jsonLines: Array(Self.recorded().utf8))
        let original = try Transcript(jsonLines: Array(text.utf8))
        #expect(!original.says(theSameAs: recorded))
    }

    @Test func aUsedTypeNoLongerServedFails() async throws {
        var surveyOnly = ViewModelRegistry()
        surveyOnly.register("survey") { _ in SurveyViewModel() }
        let text = try await Self.recorded()
        let report = try await Self.report(text, against: surveyOnly)
        #expect("\(report)".contains("result.viewModels.email: expected {\"type\":\"email\""), "\(report)")
    }
}
