import Foundation
import Testing
@testable import BinderyServer

// What a view model's own code says reaches the client: a LocalizedError's message, a
// RawRepresentable argument made with init(rawValue:), a service the command finds in the
// daemon's dependencies.

private enum SyncError: LocalizedError {
    case offline
    var errorDescription: String? { "You are offline." }
    var recoverySuggestion: String? { "Connect to a network and try again." }
}

private struct TextStyle: OptionSet {
    let rawValue: Int
    static let bold = TextStyle(rawValue: 1)
    static let italic = TextStyle(rawValue: 2)
}

/// A service a command needs and the view model does not keep.
private final class SyncService {
    var pushed: [String] = []
}

private enum SyncServiceKey: DependencyKey {
    static func liveValue(_ dependencies: Dependencies) -> SyncService { SyncService() }
}

@MainActor @Observable
private final class NoteViewModel {
    var text = "draft"
    private(set) var style: TextStyle = []
    func apply(_ style: TextStyle) { self.style = style }
    func sync(with service: SyncService) throws {
        guard !text.isEmpty else { throw SyncError.offline }
        service.pushed.append(text)
    }
}

extension NoteViewModel: ViewModel {
    static var exposure: Exposure<NoteViewModel> {
        Exposure {
            Field("text", \.text)
            Output("style", \.style)
            Command("apply") { (model, style: TextStyle) in model.apply(style) }
            Command("sync") { model in try model.sync(with: Dependencies.current![SyncServiceKey.self]) }
        }
    }
}

@MainActor @Suite struct ViewModelsOwnWordsTests {
    let connection = InMemoryConnection(framing: .newlineDelimited)
    let server: Server

    init() {
        var registry = ViewModelRegistry()
        registry.register("note") { _ in NoteViewModel() }
        server = Server(registry: registry, serverInfo: ("test", "1"), connection: connection)
        server.start()
    }

    func exchange(_ lines: [String]) async -> [String] {
        for line in lines { connection.deliver(bytes: Array((line + "\n").utf8)) }
        var answers: [String] = []
        while let body = await connection.next(timeout: .milliseconds(200)) { answers.append(String(decoding: body, as: UTF8.self)) }
        return answers
    }

    @Test func aCommandsLocalizedErrorIsItsMessage() async {
        let answers = await exchange([
            #"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"note"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"setField","params":{"session":1,"field":"text","value":""}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"invoke","params":{"session":1,"command":"sync"}}"#,
        ])
        #expect(answers.last == #"{"jsonrpc":"2.0","id":3,"error":{"code":-32017,"message":"Command \"sync\" of note failed: You are offline.","data":{"session":1,"command":"sync","detail":{"recoverySuggestion":"Connect to a network and try again."}}}}"#)
    }

    @Test func aCommandReachesTheDaemonsDependencies() async {
        let answers = await exchange([
            #"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"note"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"invoke","params":{"session":1,"command":"sync"}}"#,
        ])
        #expect(answers.last == #"{"jsonrpc":"2.0","id":2,"result":{"result":null}}"#)
        #expect(server.dependencies[SyncServiceKey.self].pushed == ["draft"])
        #expect(Dependencies.current == nil)  // only while a command runs
    }

    @Test func aRawRepresentableArgumentIsMadeWithInitRawValue() async {
        let answers = await exchange([
            #"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"note"}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"invoke","params":{"session":1,"command":"apply","args":3}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"invoke","params":{"session":1,"command":"apply","args":"bold"}}"#,
        ])
        #expect(answers[1] == #"{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":1,"changes":{"style":3},"cause":2}}"#)
        #expect(answers[2] == #"{"jsonrpc":"2.0","id":2,"result":{"result":null}}"#)
        #expect(answers[3].contains(#""code":-32602"#), "\(answers[3])")
    }
}
