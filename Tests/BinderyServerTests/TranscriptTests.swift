import Foundation
import Testing

/// The conformance suite: every recorded exchange under Tests/Transcripts replays byte for byte
/// against a fresh server in this process; those that pin stdio behaviour (framing, exit codes,
/// end of input) also against the real binary over pipes.
@Suite struct TranscriptTests {
    static let directory = repositoryRoot.appendingPathComponent("Tests/Transcripts")

    static var names: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasSuffix(".jsonl") }.sorted()
    }

    /// The transcripts replayed in this process: all but those that depend on tasks a view model
    /// starts by itself (a stream, a debounce, a tab's timer) moving with the virtual clock. Only a
    /// `--deterministic` daemon orders those, by running every job on its main thread (SerialJobs),
    /// which a test process shared with other tests must not do for good; they replay over pipes
    /// here. (BinderyTesting's `Transcript.replay` does it for a replay's duration only, replays
    /// taking turns: Tests/ReplayTests replays every transcript in-process so, semantically.)
    static var inProcessNames: [String] { names.filter { !overPipesOnly.contains($0) } }
    static let overPipesOnly = ["cause-until-answered.jsonl"]

    @Test func theSuiteIsNotEmpty() {
        #expect(Self.names.count >= 10, "transcripts found: \(Self.names)")
    }

    /// The transcripts replayed against the real `binderyd` as well.
    static let overPipes = ["lifecycle.jsonl", "exit-without-shutdown.jsonl", "jsonrpc-errors.jsonl",
                            "deterministic-end-of-input.jsonl", "email-form.jsonl", "exit-cancels-commands.jsonl"]
                           + overPipesOnly

    static func transcript(_ name: String) throws -> Transcript {
        try Transcript(jsonLines: String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8))
    }

    @Test(arguments: inProcessNames)
    @MainActor
    func replaysInProcess(_ name: String) async throws {
        let problems = try await Self.transcript(name).replayInProcess()
        #expect(problems.isEmpty, "\(name):\n\(problems.joined(separator: "\n"))")
    }
}

extension ProcessTests {
    /// The transcripts that pin stdio behaviour, replayed against the real binary.
    @Suite struct BinaryTranscriptTests {
        @Test(arguments: TranscriptTests.overPipes)
        func replaysAgainstTheBinary(_ name: String) throws {
            let problems = try TranscriptTests.transcript(name).replay()
            #expect(problems.isEmpty, "\(name):\n\(problems.joined(separator: "\n"))")
        }
    }
}
