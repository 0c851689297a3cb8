/// The recorded test `bindery-dev --init` writes: a transcript of the greeting form, as
/// `bindery-dev --record` writes one, and a Swift Testing test that replays it in one line.
enum RecordedTest {
    static func files(product name: String) -> [(String, String)] {
        [
            ("Tests/\(name)Tests/GreetingTests.swift", """
            import BinderyServer
            import BinderyTesting
            import Testing
            @testable import \(name)

            /// The daemon's view models, registered as main.swift registers them.
            @MainActor var registry: ViewModelRegistry {
                var registry = ViewModelRegistry()
                registry.register("greeting") { _ in GreetingViewModel() }
                return registry
            }

            /// A session recorded with `bindery-dev --record` (or an editor's, or the page's, recording),
            /// replayed: every message the client was told must be told again. After a deliberate
            /// change, record it again with `BINDERY_RECORD=1 swift test`.
            @MainActor @Test func greetsAda() async throws {
                try await Transcript("Transcripts/greet-ada.jsonl").replay(registry)
            }

            """),
            ("Tests/\(name)Tests/Transcripts/greet-ada.jsonl", """
            {"framing":"ndjson","daemon":"\(name)","arguments":["--deterministic","--seed","1"]}
            {"in":{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"greeting"}}}
            {"out":{"jsonrpc":"2.0","id":1,"result":{"session":1,"revision":0,"state":{"name":"","greeting":"Hello!"}}}}
            {"in":{"jsonrpc":"2.0","id":2,"method":"setField","params":{"session":1,"field":"name","value":"Ada"}}}
            {"out":{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":1,"changes":{"greeting":"Hello, Ada!"},"cause":2}}}
            {"out":{"jsonrpc":"2.0","id":2,"result":{"revision":1}}}

            """),
        ]
    }
}
