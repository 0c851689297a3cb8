import Foundation
@testable import BinderyServer
import Testing

/// Malformed input of every class gets a clear answer, and the server goes on serving: each case
/// sends raw bytes (through the same framer and parser as stdin's), then ends its input, and
/// expects these answers (by substring), in order, and exit code 0. In-process: no daemon needed.
@Suite struct BadInputTests {
    static let open = #"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email"}}"#
    static let opened = #""result":{"session":"#

    static func lsp(_ body: String) -> String { "Content-Length: \(body.utf8.count)\r\n\r\n\(body)" }
    static func lsp(_ body: [UInt8]) -> [UInt8] { Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body }

    struct Case: CustomStringConvertible, Sendable {
        let description: String
        let input: [UInt8]
        let answers: [String]
        init(_ description: String, _ input: String, _ answers: [String]) {
            self.init(description, Array(input.utf8), answers)
        }
        init(_ description: String, _ input: [UInt8], _ answers: [String]) {
            self.description = description
            self.input = input
            self.answers = answers
        }
    }

    static let cases: [Case] = [
        Case("no Content-Length", "Content-Type: x\r\n\r\n" + lsp(open),
             ["a header block without Content-Length", opened]),
        Case("a negative Content-Length", "Content-Length: -5\r\n\r\n" + lsp(open),
             [#"Content-Length is not a non-negative integer: \"-5\""#, opened]),
        Case("a non-numeric Content-Length", "Content-Length: abc\r\n\r\n" + lsp(open),
             [#"Content-Length is not a non-negative integer: \"abc\""#, opened]),
        Case("a huge Content-Length", "Content-Length: 99999999999999999999\r\n\r\n" + lsp(open),
             ["Content-Length is not a non-negative integer", opened]),
        Case("two Content-Lengths", "Content-Length: 5\r\nContent-Length: 6\r\n\r\n" + lsp(open),
             ["two different Content-Length headers: 5 and 6", opened]),
        Case("headers without the blank line at the end", lsp(open) + "Content-Length: 10\r\n",
             [opened, "the stream ended inside a header block"]),
        Case("a body shorter than announced", lsp(open) + "Content-Length: 100\r\n\r\n{}",
             [opened, "the stream ended inside a frame: 2 of 100 body bytes arrived"]),
        Case("garbage between frames", Array(lsp(open).utf8) + [0, 1, 0x67, 0xFF, 0x0A] + Array(lsp(open).utf8),
             [opened, "expected a header line", opened]),
        Case("a switch of framing mid-stream", lsp(open) + open + "\n" + lsp(open),
             [opened, "found a JSON text: the framing cannot change mid-stream", opened]),
        Case("an NDJSON line that is not JSON", open + "\nnot json\n" + open + "\n",
             [opened, "-32700", opened]),
        Case("an NDJSON line without its newline at the end", open + "\n" + open, [opened, opened]),
        Case("invalid UTF-8", lsp([UInt8](#"{"jsonrpc":"2.0","id":1,"method":"x"#.utf8) + [0xFF, 0x22, 0x7D]) + Array(lsp(open).utf8),
             ["invalid UTF-8 in string", opened]),
        Case("a lone surrogate escape", lsp(#"{"jsonrpc":"2.0","id":1,"method":"\ud800"}"#) + lsp(open),
             [#"lone surrogate \\uD800"#, opened]),
        Case("100,000 levels of nesting", lsp(String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)) + lsp(open),
             ["nesting deeper than 512 levels", opened]),
        Case("NaN spelled out", lsp(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"v":NaN}}"#) + lsp(open),
             ["NaN is not valid JSON", opened]),
        Case("Infinity spelled out", lsp(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"v":-Infinity}}"#) + lsp(open),
             ["-Infinity is not valid JSON", opened]),
        Case("duplicate keys: the last one wins", lsp(#"{"jsonrpc":"2.0","id":1,"id":2,"method":"session/open","params":{"type":"email"}}"#),
             [#"{"jsonrpc":"2.0","id":2,"result""#]),
        Case("a 50 MB string", lsp(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"s":""# + String(repeating: "a", count: 50 << 20) + #""}}"#) + lsp(open),
             ["exceeds the maximum message size (16777216 bytes)", opened]),
    ]

    @Test(arguments: cases)
    @MainActor
    func answersClearlyAndKeepsServing(_ testCase: Case) async throws {
        var registry = ViewModelRegistry()
        registry.register("email") { _ in Probe() }
        let connection = InMemoryConnection()
        let server = Server(registry: registry, connection: connection)
        server.start()
        defer { withExtendedLifetime(server) {} }
        connection.deliver(bytes: testCase.input)
        connection.deliverEnd()
        #expect(await connection.waitForClose() == 0)
        var answers: [String] = []
        while let body = await connection.next(timeout: .zero) { answers.append(String(decoding: body, as: UTF8.self)) }
        #expect(answers.count == testCase.answers.count, "\(answers)")
        for (answer, expected) in zip(answers, testCase.answers) {
            #expect(answer.contains(expected), "\(answer) should contain \(expected)")
        }
    }
}

/// The smallest view model: these cases are about bytes, not models.
@MainActor @Observable
private final class Probe: ViewModel {
    var text = ""
    static var exposure: Exposure<Probe> { Exposure { Field("text", \.text) } }
}
