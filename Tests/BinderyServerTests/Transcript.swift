import Foundation
@testable import BinderyServer
import SeedViewModels
import AppViewModels

/// A recorded exchange, as `binderyd --record` writes it: a framing line, then what the client sent
/// (`in`, or `inRaw` for bodies that are not JSON) and what the daemon wrote back (`out`), in order.
/// An optional last line `{"exit":N}` says the daemon must exit with N once its input is closed
/// (default 0).
struct Transcript {
    enum Step {
        case send([UInt8])
        case expect([UInt8])
    }

    var framing: Framing = .contentLength
    /// The daemon: `binderyd` (the seeds), or `appd` (Examples/AppViewModels), from the first line.
    var daemon = "binderyd"
    /// Options the daemon must be started with (`--deterministic`, ...), from the first line.
    var arguments: [String] = []
    var steps: [Step] = []
    var exitCode: Int32 = 0

    /// Parses the transcript format; `in`/`out` bodies are taken byte for byte from the line.
    init(jsonLines text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let bytes = Array(line.utf8)
            if let body = Self.body(of: bytes, after: "{\"in\":") {
                steps.append(.send(body))
            } else if let body = Self.body(of: bytes, after: "{\"out\":") {
                steps.append(.expect(body))
            } else {
                let value = try JSONParser.parse(bytes)
                if let raw = value["inRaw"]?.stringValue {
                    steps.append(.send(Array(raw.utf8)))
                } else if let name = value["framing"]?.stringValue, let framing = Framing(rawValue: name) {
                    self.framing = framing
                    arguments = value["arguments"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    daemon = value["daemon"]?.stringValue ?? daemon
                } else if case .int(let code)? = value["exit"] {
                    exitCode = Int32(code)
                } else {
                    throw TranscriptError("unrecognised line: \(line)")
                }
            }
        }
    }

    /// Builds a transcript from the `-->` / `<--` lines of a protocol.md example, in NDJSON framing;
    /// a first line `$ binderyd ARGS` (or `$ appd ARGS`) gives the daemon and its arguments.
    init(arrows text: Substring) {
        framing = .newlineDelimited
        for line in text.split(separator: "\n") {
            if line.hasPrefix("$ ") {
                let words = line.split(separator: " ").dropFirst().map(String.init)
                daemon = words.first ?? daemon
                arguments = Array(words.dropFirst())
            }
            if line.hasPrefix("--> ") { steps.append(.send(Array(line.dropFirst(4).utf8))) }
            if line.hasPrefix("<-- ") { steps.append(.expect(Array(line.dropFirst(4).utf8))) }
        }
    }

    private static func body(of line: [UInt8], after prefix: String) -> [UInt8]? {
        let prefix = Array(prefix.utf8)
        guard line.count > prefix.count, line.starts(with: prefix), line.last == UInt8(ascii: "}") else { return nil }
        return Array(line[prefix.count..<(line.count - 1)])
    }

    /// Plays the client's side against a fresh daemon; returns a description of every difference.
    /// Input is closed right after the last `in` line, as when it was recorded: the daemon answers
    /// everything it has read either way, and what it does at end of input is part of the exchange.
    func replay() throws -> [String] {
        let daemon = try DaemonProcess(executable: self.daemon, arguments: arguments)
        var problems: [String] = []
        let lastSend = steps.lastIndex { if case .send = $0 { true } else { false } }
        for (index, step) in steps.enumerated() {
            switch step {
            case .send(let body):
                daemon.send(body, framing: framing)
                if index == lastSend { daemon.closeInput() }
            case .expect(let expected):
                guard let actual = daemon.readBody() else {
                    problems.append("step \(index): expected \(text(expected)), got nothing")
                    daemon.process.terminate()
                    return problems + ["stderr: \(daemon.standardError)"]
                }
                if actual != expected {
                    problems.append("step \(index):\n" + difference(expected, actual))
                }
            }
        }
        daemon.closeInput()
        if let extra = daemon.readBody(timeout: 5) {
            problems.append("unexpected output after the last step: \(text(extra))")
        }
        let code = daemon.waitForExit()
        if code != exitCode { problems.append("exit code \(code.map(String.init) ?? "none (still running)"), expected \(exitCode)") }
        return problems
    }

    /// Plays the client's side against a server run in this process over an ``InMemoryConnection``:
    /// the same bytes in, the same bodies expected out, the same exit code; no process or pipe.
    @MainActor
    func replayInProcess() async throws -> [String] {
        guard case .serve(let options) = try ServerOptions.parse(arguments) else { return ["bad arguments \(arguments)"] }
        var registry = ViewModelRegistry()
        let serverInfo: (String, String)
        switch daemon {
        case "appd":
            ExampleViewModels.register(into: &registry)
            serverInfo = ("appd", "1.0.0")
        default:
            registry.registerSeedViewModels()
            serverInfo = ("binderyd", BinderyDaemon.version)
        }
        let connection = InMemoryConnection(framing: framing)
        let server = Server(registry: registry, options: options, serverInfo: serverInfo, connection: connection)
        server.start()
        defer { withExtendedLifetime(server) {} }
        var problems: [String] = []
        let lastSend = steps.lastIndex { if case .send = $0 { true } else { false } }
        for (index, step) in steps.enumerated() {
            switch step {
            case .send(let body):
                var bytes: [UInt8] = []
                framing.frame(body, into: &bytes)
                connection.deliver(bytes: bytes)
                if index == lastSend { connection.deliverEnd() }
            case .expect(let expected):
                // A guard against a hang, not a time limit: in-process replays share two cores with
                // every other test (and a loaded machine), and an expected message always comes.
                guard let actual = await connection.next(timeout: Self.hangGuard) else {
                    return problems + ["step \(index): expected \(text(expected)), got nothing"]
                }
                if actual != expected { problems.append("step \(index):\n" + difference(expected, actual)) }
            }
        }
        if lastSend == nil { connection.deliverEnd() }
        let code = await connection.waitForClose(timeout: Self.hangGuard)
        if let extra = await connection.next(timeout: .zero) {
            problems.append("unexpected output after the last step: \(text(extra))")
        }
        if code != exitCode { problems.append("exit code \(code.map(String.init) ?? "none (still open)"), expected \(exitCode)") }
        return problems
    }

    /// How long a replay waits for a message that must come before calling the daemon hung.
    static let hangGuard = Duration.seconds(60)

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Both texts around their first difference, so a long message does not bury it.
    private func difference(_ expected: [UInt8], _ actual: [UInt8]) -> String {
        let common = zip(expected, actual).prefix { $0 == $1 }.count
        let start = max(0, common - 60)
        func window(_ bytes: [UInt8]) -> String {
            (start > 0 ? "…" : "") + text(Array(bytes[start..<min(bytes.count, common + 80)]))
                + (bytes.count > common + 80 ? "…" : "")
        }
        return "  expected \(window(expected))\n  actual   \(window(actual))"
    }
}

struct TranscriptError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
