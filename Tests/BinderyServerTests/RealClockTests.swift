import Foundation
import Testing

extension ProcessTests {
    /// The timer and the login against the real clock: without `--deterministic`, time passes by itself.
    /// (Deadlines here only keep a broken daemon from hanging the suite; nothing is timed.)
    @Suite struct RealClockTests {
        func text(_ body: [UInt8]?) -> String { body.map { String(decoding: $0, as: UTF8.self) } ?? "nothing" }

        func request(_ id: Int, _ method: String, _ params: String) -> [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
        }

        @Test func theBottomBarTimerPushesUnaskedAndStopsWhenTheSessionCloses() throws {
            let daemon = try DaemonProcess()
            daemon.send(request(1, "session/open", #"{"type":"bottomBar"}"#), framing: .contentLength)
            #expect(text(daemon.readBody()).contains(#""state":{"text":""}"#))
            let tick = text(daemon.readBody(timeout: 10))
            #expect(tick.contains(#""method":"didChange","params":{"session":1,"revision":1,"changes":{"text":"Random number: "#))
            #expect(!tick.contains("cause"))
            daemon.send(request(2, "session/close", #"{"session":1}"#), framing: .contentLength)
            // A tick may have raced the close; after the close's answer, nothing more comes.
            var answer = text(daemon.readBody())
            if answer.contains("didChange") { answer = text(daemon.readBody()) }
            #expect(answer == #"{"jsonrpc":"2.0","id":2,"result":null}"#)
            #expect(daemon.readBody(timeout: 4.5) == nil)
        }

        @Test func loginAnswersWithTheUserAfterTheFakeAPIDelay() throws {
            let daemon = try DaemonProcess()
            daemon.send(request(1, "session/open", #"{"type":"login"}"#), framing: .newlineDelimited)
            daemon.send(request(2, "setField", #"{"session":1,"field":"firstName","value":"Ada"}"#), framing: .newlineDelimited)
            daemon.send(request(3, "setField", #"{"session":1,"field":"lastName","value":"Lovelace"}"#), framing: .newlineDelimited)
            daemon.send(request(4, "invoke", #"{"session":1,"command":"login"}"#), framing: .newlineDelimited)
            var messages: [String] = []
            while let body = daemon.readBody(timeout: 10) {
                messages.append(text(body))
                if messages.last!.contains(#""id":4"#) { break }
            }
            #expect(messages.contains { $0.contains(#""userLoadingInProgress":true"#) && $0.contains(#""cause":4"#) })
            #expect(messages.last == #"{"jsonrpc":"2.0","id":4,"result":{"result":{"firstName":"Ada","lastName":"Lovelace","authToken":"123adasdsadasdasdasdd"}}}"#)
            #expect(messages.dropLast().last?.contains(#""userLoadingInProgress":false,"loggedInUser":{"firstName":"Ada""#) == true)
        }

        @Test func clockAdvanceNeedsDeterministicMode() throws {
            let daemon = try DaemonProcess()
            daemon.send(request(1, "clock/advance", #"{"ms":10}"#), framing: .newlineDelimited)
            #expect(text(daemon.readBody()).contains(#""code":-32019"#))
        }
    }
}
