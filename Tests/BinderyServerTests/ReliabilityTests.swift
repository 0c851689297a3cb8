import Foundation
import JSONRPC
import Testing

extension ProcessTests {
    /// Faults and limits: the daemon never crashes, hangs or loses a message. (Deadlines only guard
    /// against hangs; nothing here is timed.)
    @Suite struct ReliabilityTests {
        func text(_ body: [UInt8]?) -> String { body.map { String(decoding: $0, as: UTF8.self) } ?? "nothing" }

        func request(_ id: Int, _ method: String, _ params: String) -> [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
        }

        func residentKilobytes(of process: Process) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
            return Int(line.split(separator: " ").dropFirst().first ?? "")
        }

        @Test func limitsAnswerWithTheLimitAndItsValue() throws {
            let daemon = try DaemonProcess(arguments: ["--max-sessions", "2", "--max-in-flight", "1", "--deterministic"])
            daemon.send(request(1, "session/open", #"{"type":"login"}"#), framing: .newlineDelimited)
            daemon.send(request(2, "session/open", #"{"type":"login"}"#), framing: .newlineDelimited)
            daemon.send(request(3, "session/open", #"{"type":"email"}"#), framing: .newlineDelimited)
            _ = daemon.readBody(); _ = daemon.readBody()
            #expect(text(daemon.readBody()) == #"{"jsonrpc":"2.0","id":3,"error":{"code":-32020,"message":"Limit reached: 2 sessions are open (--max-sessions 2)","data":{"limit":"--max-sessions","value":2}}}"#)
            for session in [1, 2] {
                for (field, value) in [("firstName", "A"), ("lastName", "B")] {
                    daemon.send(request(10 + session, "setField", #"{"session":\#(session),"field":"\#(field)","value":"\#(value)"}"#), framing: .newlineDelimited)
                }
            }
            daemon.send(request(20, "invoke", #"{"session":1,"command":"login"}"#), framing: .newlineDelimited)
            daemon.send(request(21, "invoke", #"{"session":2,"command":"login"}"#), framing: .newlineDelimited)
            var answers: [String] = []
            while let body = daemon.readBody(timeout: 5) {
                answers.append(text(body))
                if answers.last!.contains(#""id":21"#) { break }
            }
            #expect(answers.last == #"{"jsonrpc":"2.0","id":21,"error":{"code":-32020,"message":"Limit reached: 1 commands are running (--max-in-flight 1)","data":{"limit":"--max-in-flight","value":1}}}"#)
        }

        @Test func oversizedAndOverlyDeepMessagesAreRefusedAndServingGoesOn() throws {
            let daemon = try DaemonProcess(arguments: ["--max-message-size", "1000", "--max-depth", "8"])
            daemon.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"\#(String(repeating: "a", count: 2000))"}}"#.utf8), framing: .contentLength)
            #expect(text(daemon.readBody()).contains("exceeds the maximum message size (1000 bytes)"))
            daemon.send(Array("[[[[[[[[[[1]]]]]]]]]]".utf8), framing: .contentLength)
            #expect(text(daemon.readBody()).contains("nesting deeper than 8 levels"))
            daemon.send(request(2, "session/open", #"{"type":"email"}"#), framing: .contentLength)
            #expect(text(daemon.readBody()).contains(#""id":2,"result""#))
        }

        @Test(arguments: [[], ["--deterministic"]])
        func sigtermLetsRunningCommandsAnswerThenExitsZero(arguments: [String]) throws {
            let daemon = try DaemonProcess(arguments: arguments)
            for (id, method, params) in [(1, "session/open", #"{"type":"login"}"#),
                                         (2, "setField", #"{"session":1,"field":"firstName","value":"A"}"#),
                                         (3, "setField", #"{"session":1,"field":"lastName","value":"B"}"#),
                                         (4, "invoke", #"{"session":1,"command":"login"}"#)] {
                daemon.send(request(id, method, params), framing: .newlineDelimited)
            }
            var answers: [String] = []
            while answers.count < 4, let body = daemon.readBody() { answers.append(text(body)) }  // up to "running"
            daemon.process.terminate()  // SIGTERM
            var last = ""
            while let body = daemon.readBody(timeout: 5) { last = text(body) }
            #expect(daemon.waitForExit() == 0)
            if arguments.isEmpty {
                #expect(last.contains(#""id":4,"result":{"result":{"firstName":"A""#))
            } else {
                #expect(last == #"{"jsonrpc":"2.0","id":4,"error":{"code":-32800,"message":"Request cancelled: the daemon received SIGTERM"}}"#)
            }
        }

        @Test func aClientThatStopsReadingMakesTheDaemonStopReadingNotGrow() throws {
            let daemon = try DaemonProcess()
            daemon.send(request(0, "session/open", #"{"type":"email"}"#), framing: .contentLength)
            _ = daemon.readBody()
            let baseline = residentKilobytes(of: daemon.process) ?? 0
            // 50,000 requests (6 MB in, 10 MB of answers) from a writer thread, while nobody reads: the
            // pipes fill, the daemon blocks writing, stops reading, and the writer blocks. Read without
            // limit, the parsed requests alone would take well over the 24 MB allowed here.
            let total = 50_000
            let input = daemon.input
            let writer = Thread {
                var batch: [UInt8] = []
                for id in 1...total {
                    let value = id % 2 == 0 ? "ada@example.com" : "not-an-email"
                    let body = #"{"jsonrpc":"2.0","id":\#(id),"method":"setField","params":{"session":1,"field":"email","value":"\#(value)"}}"#
                    Framing.contentLength.frame(Array(body.utf8), into: &batch)
                    if id % 500 == 0 { input.write(Data(batch)); batch = [] }
                }
            }
            writer.start()
            Thread.sleep(forTimeInterval: 2)
            let stalled = residentKilobytes(of: daemon.process) ?? 0
            #expect(stalled - baseline < 24 * 1024, "RSS grew from \(baseline) kB to \(stalled) kB while the client did not read")
            // Reading again: every answer arrives, in order, each request's didChange before it.
            var nextID = 1
            var revision = 0
            while nextID <= total, let body = daemon.readBody(timeout: 30) {
                let message = text(body)
                if message.hasPrefix(#"{"jsonrpc":"2.0","method":"didChange""#) {
                    revision += 1
                    #expect(message.contains(#""revision":\#(revision),"#) && message.contains(#""cause":\#(nextID)}"#))
                } else {
                    #expect(message == #"{"jsonrpc":"2.0","id":\#(nextID),"result":{"revision":\#(revision)}}"#)
                    nextID += 1
                }
            }
            #expect(nextID == total + 1)
        }

        @Test func tenThousandPipelinedRequestsAcrossAHundredSessionsEachGetOneAnswer() throws {
            let daemon = try DaemonProcess(arguments: ["--deterministic"])
            var bytes: [UInt8] = []
            var id = 0
            func add(_ method: String, _ params: String) {
                id += 1
                Framing.newlineDelimited.frame(request(id, method, params), into: &bytes)
            }
            for _ in 1...100 { add("session/open", #"{"type":"login"}"#) }
            for round in 0..<100 {
                for session in 1...100 {
                    switch round {
                    case 0: add("setField", #"{"session":\#(session),"field":"firstName","value":"Ada"}"#)
                    case 1: add("setField", #"{"session":\#(session),"field":"lastName","value":"L\#(session)"}"#)
                    case 2, 30: add("invoke", #"{"session":\#(session),"command":"login"}"#)
                    case 20, 40, 70: add("clock/advance", #"{"ms":1500}"#)
                    case 50: add("invoke", #"{"session":\#(session),"command":"login"}"#)
                    case 51 where session % 2 == 0: add("session/close", #"{"session":\#(session)}"#)
                    default: add("session/state", #"{"session":\#(session)}"#)
                    }
                }
            }
            add("clock/advance", #"{"ms":1500}"#)
            // Written from a thread of its own: the answers fill the pipe long before the requests are
            // all written, and the daemon stops reading until they are read (backpressure).
            let input = daemon.input
            let everything = Data(bytes)
            Thread { input.write(everything) }.start()
            var answered = Set<Int>()
            var revisions: [Int: Int] = [:]
            var problems: [String] = []
            while answered.count < id, let body = daemon.readBody(timeout: 30) {
                guard let message = try? JSONParser.parse(body) else { problems.append("not JSON"); continue }
                if case .int(let answerID)? = message["id"] {
                    if !answered.insert(answerID).inserted { problems.append("two answers for \(answerID)") }
                } else if message["method"] == "didChange", case .int(let session)? = message["params"]?["session"],
                          case .int(let revision)? = message["params"]?["revision"] {
                    if revision != (revisions[session] ?? 0) + 1 { problems.append("session \(session) jumped to revision \(revision)") }
                    revisions[session] = revision
                }
            }
            #expect(answered.count == id)
            #expect(problems.isEmpty, "\(problems.prefix(5))")
            #expect(revisions.count == 100)
        }
    }
}
