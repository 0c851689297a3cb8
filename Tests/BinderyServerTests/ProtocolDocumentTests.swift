import Foundation
import Testing

/// protocol.md cannot drift: every ```transcript block in it replays against a fresh server.
@Suite struct ProtocolDocumentTests {
    static var blocks: [Substring] {
        guard let text = try? String(contentsOf: repositoryRoot.appendingPathComponent("protocol.md"), encoding: .utf8)
        else { return [] }
        var blocks: [Substring] = []
        var rest = text[...]
        while let start = rest.range(of: "```transcript\n") {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: "```") else { break }
            blocks.append(rest[..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    @Test func everyMethodHasAnExample() {
        let examples = Self.blocks.joined()
        for method in ["session/open", "session/observe", "session/state", "setField", "shutdown",
                       "viewModels/describe", "exit"] {
            #expect(examples.contains("\"method\":\"\(method)\""), "no checked example of \(method)")
        }
    }

    @Test(arguments: Array(blocks.enumerated().map { $0.offset }))
    @MainActor
    func exampleReplays(_ index: Int) async throws {
        let transcript = Transcript(arrows: Self.blocks[index])
        let problems = try await transcript.replayInProcess()
        #expect(problems.isEmpty, "example \(index + 1) of protocol.md:\n\(problems.joined(separator: "\n"))")
    }
}
