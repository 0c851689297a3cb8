import Foundation
import JSONRPC
import Testing

extension ProcessTests {
    /// The daemon as a process: framing over real pipes, stdout protection, and how it ends.
    @Suite struct StdioTests {
        let open = Array(#"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email"}}"#.utf8)
        let set = Array(#"{"jsonrpc":"2.0","id":2,"method":"setField","params":{"session":1,"field":"email","value":"a@b.co"}}"#.utf8)

        func text(_ body: [UInt8]?) -> String { body.map { String(decoding: $0, as: UTF8.self) } ?? "nothing" }

        @Test(arguments: [Framing.contentLength, .newlineDelimited])
        func framesWrittenOneByteAtATimeAreRead(framing: Framing) throws {
            let daemon = try DaemonProcess()
            var bytes: [UInt8] = []
            framing.frame(open, into: &bytes)
            for byte in bytes { daemon.write([byte]) }
            #expect(text(daemon.readBody()).contains(#""result":{"session":1"#))
        }

        @Test(arguments: [Framing.contentLength, .newlineDelimited])
        func severalFramesInOneWriteAreAllAnswered(framing: Framing) throws {
            let daemon = try DaemonProcess()
            var bytes: [UInt8] = []
            framing.frame(open, into: &bytes)
            framing.frame(set, into: &bytes)
            daemon.write(bytes)
            #expect(text(daemon.readBody()).contains(#""id":1"#))
            #expect(text(daemon.readBody()).contains(#""method":"didChange""#))
            #expect(text(daemon.readBody()).contains(#""id":2,"result":{"revision":1}"#))
        }

        @Test func aStrayPrintInAViewModelGoesToStderrNotTheProtocol() throws {
            let daemon = try DaemonProcess(executable: "counterd")
            daemon.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"counter"}}"#.utf8), framing: .contentLength)
            daemon.send(Array(#"{"jsonrpc":"2.0","id":2,"method":"invoke","params":{"session":1,"command":"increment"}}"#.utf8), framing: .contentLength)
            #expect(text(daemon.readBody()).contains(#""id":1"#))
            #expect(text(daemon.readBody()) == #"{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":1,"changes":{"count":1,"summary":"count 1, step 1"},"cause":2}}"#)
            #expect(text(daemon.readBody()) == #"{"jsonrpc":"2.0","id":2,"result":{"result":null}}"#)
            daemon.closeInput()
            #expect(daemon.readBody(timeout: 5) == nil)
            #expect(daemon.waitForExit() == 0)
            #expect(daemon.standardError.contains("incremented to 1"))
        }

        @Test func endOfInputEndsTheProcessWithCodeZero() throws {
            let daemon = try DaemonProcess()
            daemon.send(open, framing: .newlineDelimited)
            #expect(daemon.readBody() != nil)
            daemon.closeInput()
            #expect(daemon.waitForExit() == 0)
        }

        @Test func endOfInputInsideAFrameIsReportedThenTheProcessEnds() throws {
            let daemon = try DaemonProcess()
            daemon.write(Array("Content-Length: 50\r\n\r\n{\"jsonrpc\"".utf8))
            daemon.closeInput()
            #expect(text(daemon.readBody()).contains("the stream ended inside a frame"))
            #expect(daemon.waitForExit() == 0)
        }

        @Test func aClosedStdoutEndsTheProcessCleanly() throws {
            let daemon = try DaemonProcess()
            daemon.closeOutput()
            daemon.send(open, framing: .contentLength)
            #expect(daemon.waitForExit() == 0)
        }

        @Test func helpAndVersionPrintAndExit() throws {
            let help = try DaemonProcess(arguments: ["--help"])
            #expect(help.waitForExit() == 0)
            #expect(help.standardOutput.hasPrefix("usage: binderyd [--record FILE]"))
            let version = try DaemonProcess(arguments: ["--version"])
            #expect(version.waitForExit() == 0)
            // binderyd links the Swift runtime statically, so its sessions hold Observation's lasting
            // registration (LastingRegistration). The unit tests cannot see that path (a debug test
            // bundle links the runtime dynamically and runs the public API): should the toolchain drop
            // the SPI or change `_AccessList`, this fails instead of every change silently costing a
            // registration again.
            #expect(version.standardOutput == "binderyd 0.1.0\nobservation: lasting registration (Observation's SPI)\n")
            let bad = try DaemonProcess(arguments: ["--frobnicate"])
            #expect(bad.waitForExit() == 2)
            #expect(bad.standardError.contains("unknown argument \"--frobnicate\""))
        }

        @Test func recordWritesTheExchangeAsATranscript() throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("bindery-\(UUID()).jsonl").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            // A request the daemon reads in place (the hot path, no body copied unless recording).
            #expect(FlatRequest(open) != nil)
            let daemon = try DaemonProcess(arguments: ["--record", path])
            daemon.send(open, framing: .newlineDelimited)
            _ = daemon.readBody()
            daemon.closeInput()
            #expect(daemon.waitForExit() == 0)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.first == #"{"framing":"ndjson","daemon":"binderyd"}"#)
            #expect(lines.dropFirst().first == "{\"in\":\(String(decoding: open, as: UTF8.self))}")
            #expect(lines.last?.hasPrefix(#"{"out":{"jsonrpc":"2.0","id":1,"result":{"session":1"#) == true)
        }
    }
}
