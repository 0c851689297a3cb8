import Foundation
import Testing

/// The conformance suite: every recorded exchange under Tests/Transcripts replays byte for byte
/// against a fresh daemon.
@Suite struct TranscriptTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/Transcripts")

    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    @Test func theSuiteIsNotEmpty() {
        #expect(Self.names.count >= 10, "transcripts found: \(Self.names)")
    }

    @Test(arguments: names)
    func replays(_ name: String) throws {
        let text = try String(contentsOf: Self.directory.appendingPathComponent(name), encoding: .utf8)
        let transcript = try Transcript(jsonLines: text)
        let problems = try transcript.replay()
        #expect(problems.isEmpty, "\(name):\n\(problems.joined(separator: "\n"))")
    }
}
