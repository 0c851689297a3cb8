import Foundation
import Testing
@testable import BinderyServer
import SeedViewModels
import AppViewModels

/// protocol.md's examples of a shared daemon: every ```shared-transcript block replays in-process
/// against one shared hub (as `binderyd --listen` runs it), one in-memory connection per client.
/// A line `A --> {...}` is what client A sends, `B <-- {...}` what client B must be sent next;
/// each client's lines are checked in their own order. A first line `$ appd ARGS` serves
/// Examples/AppViewModels instead of the seeds.
@Suite struct SharedTranscriptTests {
    static var blocks: [Substring] {
        guard let text = try? String(contentsOf: repositoryRoot.appendingPathComponent("protocol.md"), encoding: .utf8)
        else { return [] }
        var blocks: [Substring] = []
        var rest = text[...]
        while let start = rest.range(of: "```shared-transcript\n") {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: "```") else { break }
            blocks.append(rest[..<end.lowerBound])
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    @Test func thereAreExamples() {
        #expect(Self.blocks.count >= 2)
    }

    @Test(arguments: Array(blocks.enumerated().map { $0.offset }))
    @MainActor
    func exampleReplays(_ index: Int) async throws {
        let problems = try await Self.replay(Self.blocks[index])
        #expect(problems.isEmpty, "shared example \(index + 1) of protocol.md:\n\(problems.joined(separator: "\n"))")
    }

    @MainActor
    static func replay(_ block: Substring) async throws -> [String] {
        var arguments: [String] = []
        var daemon = "binderyd"
        var steps: [(client: String, send: Bool, body: String)] = []
        for line in block.split(separator: "\n") {
            if line.hasPrefix("$ ") {
                let words = line.split(separator: " ").dropFirst().map(String.init)
                daemon = words.first ?? daemon
                arguments = Array(words.dropFirst())
            }
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[1] == "-->" || parts[1] == "<--" else { continue }
            steps.append((String(parts[0]), parts[1] == "-->", String(parts[2])))
        }
        guard case .serve(let options) = try ServerOptions.parse(arguments) else { return ["bad arguments"] }
        var registry = ViewModelRegistry()
        if daemon == "appd" { ExampleViewModels.register(into: &registry) } else { registry.registerSeedViewModels() }
        let hub = SessionHub(registry: registry, options: options, serverInfo: ("binderyd", BinderyDaemon.version),
                             isShared: true)
        var connections: [String: InMemoryConnection] = [:]
        var problems: [String] = []
        for (index, step) in steps.enumerated() {
            let connection = connections[step.client] ?? {
                let connection = InMemoryConnection(framing: .newlineDelimited)
                hub.connect(connection)
                connections[step.client] = connection
                return connection
            }()
            if step.send {
                connection.deliver(bytes: Array((step.body + "\n").utf8))
            } else {
                guard let actual = await connection.next(timeout: Transcript.hangGuard) else {
                    problems.append("step \(index): \(step.client) expected \(step.body), got nothing")
                    continue
                }
                let text = String(decoding: actual, as: UTF8.self)
                if text != step.body { problems.append("step \(index): \(step.client)\n  expected \(step.body)\n  actual   \(text)") }
            }
        }
        for (name, connection) in connections.sorted(by: { $0.key < $1.key }) {
            if let extra = await connection.next(timeout: .milliseconds(50)) {
                problems.append("\(name) was sent more: \(String(decoding: extra, as: UTF8.self))")
            }
        }
        withExtendedLifetime(hub) {}
        return problems
    }
}
