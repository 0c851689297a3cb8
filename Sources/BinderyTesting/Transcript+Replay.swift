#if canImport(Glibc)
import Glibc
#endif
import BinderyServer
import BinderyTranscript
import JSONRPC
import Testing

extension Transcript {
    /// Replays this recorded session against your view models, in this process, as one line of a test:
    /// every message the client was told must be told again, in order. A difference fails the test
    /// with the step, the request that led to it, and each member that differs, expected and actual.
    ///
    /// ```swift
    /// @Test func greetsAda() async throws {
    ///     try await Transcript("greet-ada.jsonl").replay(.greeter)   // beside this test file
    /// }
    /// ```
    ///
    /// Compared as a client reads it: member order, white space and the spelling of numbers do not
    /// count. A transcript recorded with `--deterministic` runs on the virtual clock, and for the
    /// replay's duration the tasks your view models start themselves run on the main actor, so
    /// timers, debounces and async commands replay exactly (protocol.md, "Transcripts"). Replays
    /// take turns: one runs at a time in a test process.
    ///
    /// **Record mode.** Run with `BINDERY_RECORD=1` (`BINDERY_RECORD=1 swift test`) after a
    /// deliberate change: a transcript whose replay differs is written again from what the view
    /// models say now, its `in` lines kept, and the test fails once saying so (review the file's
    /// diff, then run again without it); one that replays as it is stays untouched and passes.
    ///
    /// - Parameters:
    ///   - registry: the view model types the daemon serves, registered as your daemon registers them.
    ///   - serverInfo: what `initialize` reports; by default what the transcript's own `initialize`
    ///     answer says (it is the daemon's, not the view models'), else the header's `daemon`.
    @MainActor
    public func replay(_ registry: ViewModelRegistry, serverInfo: (name: String, version: String)? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await replay(registry, serverInfo: serverInfo, recording: Self.isRecording, sourceLocation: sourceLocation)
    }

    @MainActor
    func replay(_ registry: ViewModelRegistry, serverInfo: (name: String, version: String)?, recording: Bool,
                sourceLocation: SourceLocation) async throws {
        if recording {
            let recorded = try await recorded(against: registry, serverInfo: serverInfo)
            guard !says(theSameAs: recorded) else { return }
            guard let path else { throw TranscriptError("\(name): record mode needs a transcript read from a file") }
            try recorded.write(to: path)
            Issue.record(Comment(rawValue: "recorded \(path) again (BINDERY_RECORD) from what the view models say now; "
                                 + "review its diff, then run the tests without BINDERY_RECORD"), sourceLocation: sourceLocation)
        } else {
            let report = try await report(against: registry, serverInfo: serverInfo)
            if !report.passed {
                Issue.record(Comment(rawValue: report.description + "\n" + Self.recordHint), sourceLocation: sourceLocation)
            }
        }
    }

    /// Replays against `registry` as ``replay(_:serverInfo:sourceLocation:)`` does, and returns what
    /// differed instead of failing the test.
    @MainActor
    public func report(against registry: ViewModelRegistry, serverInfo: (name: String, version: String)? = nil) async throws -> ReplayReport {
        try await ReplayTurns.take { try await reportInTurn(against: registry, serverInfo: serverInfo) }
    }

    /// ``report(against:serverInfo:)`` for a caller that holds the replays' turn (ReplayTurns).
    @MainActor
    func reportInTurn(against registry: ViewModelRegistry, serverInfo: (name: String, version: String)? = nil) async throws -> ReplayReport {
        let peer = try peer(registry, serverInfo)
        return await onTheClock { await Replayer.compare(self, with: peer()) }
    }

    /// Record mode's work: this transcript with the `out` lines the view models give now.
    @MainActor
    public func recorded(against registry: ViewModelRegistry, serverInfo: (name: String, version: String)? = nil) async throws -> Transcript {
        let peer = try peer(registry, serverInfo)
        return await ReplayTurns.take { await onTheClock { await Replayer.record(self, with: peer()) } }
    }

    /// Makes a fresh in-process daemon for the transcript's options.
    @MainActor
    private func peer(_ registry: ViewModelRegistry, _ serverInfo: (name: String, version: String)?) throws -> () -> InProcessPeer {
        guard case .serve(let options) = try ServerOptions.parse(arguments) else {
            throw TranscriptError("\(name): the header's arguments \(arguments) are not a daemon's options")
        }
        let info = serverInfo ?? recordedServerInfo ?? (daemon, BinderyDaemon.version)
        let framing = self.framing
        return { InProcessPeer(registry: registry, options: options, framing: framing, serverInfo: info) }
    }

    /// `BINDERY_RECORD` set (and not `0`): replays rewrite the transcripts that differ.
    public static var isRecording: Bool {
        guard let value = getenv("BINDERY_RECORD") else { return false }
        let text = String(cString: value)
        return !text.isEmpty && text != "0"
    }

    static let recordHint = "If the change is deliberate, record the transcript again: BINDERY_RECORD=1 swift test"

    /// A deterministic transcript runs with the process's global jobs on the main actor (SerialJobs):
    /// a view model's own tasks (a `Task {}` debounce, a stream) then move only with the virtual clock.
    @MainActor
    private func onTheClock<Result>(_ body: () async -> Result) async -> Result {
        if isDeterministic { await SerialJobs.during(body) } else { await body() }
    }

    /// The `serverInfo` of the recorded `initialize` answer, if the transcript has one.
    private var recordedServerInfo: (String, String)? {
        for message in messages where message.direction == .received {
            guard let info = (try? JSONParser.parse(message.body))?["result"]?["serverInfo"],
                  let name = info["name"]?.stringValue, let version = info["version"]?.stringValue else { continue }
            return (name, version)
        }
        return nil
    }
}
