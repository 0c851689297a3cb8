import Foundation
import JSONRPC
import Testing

extension ProcessTests {
    /// A client that stops reading while the daemon fans out: memory stays bounded, SIGTERM still ends
    /// the daemon within two seconds, and a client that closes its end is noticed at the first write.
    /// (Deadlines only guard against hangs; nothing here is a timing assertion except the documented
    /// two-second promise of SIGTERM.)
    @Suite struct OutputBoundTests {
        func request(_ id: Int, _ method: String, _ params: String) -> [UInt8] {
            Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
        }

        func residentKilobytes(of process: Process) -> Int {
            guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
                  let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }

        /// 60 movie lists and an add-movie form; then 300 saves sent at once while the client does not
        /// read. Each save sends the whole, growing list to all 60: about 420 MB owed in all.
        func startFanOut() throws -> DaemonProcess {
            let daemon = try DaemonProcess(arguments: ["--deterministic"])
            var bytes: [UInt8] = []
            for id in 1...60 { Framing.contentLength.frame(request(id, "session/open", #"{"type":"movieList","observe":["movies"]}"#), into: &bytes) }
            Framing.contentLength.frame(request(61, "session/open", #"{"type":"addMovie"}"#), into: &bytes)
            Framing.contentLength.frame(request(62, "setField", #"{"session":61,"field":"title","value":"A movie with a long enough title"}"#), into: &bytes)
            daemon.write(bytes)
            while let body = daemon.readBody(), !String(decoding: body, as: UTF8.self).contains(#""id":62"#) {}
            return daemon
        }

        func sendSaves(_ daemon: DaemonProcess, count: Int = 300) {
            var bytes: [UInt8] = []
            for id in 1...count {
                Framing.contentLength.frame(request(100 + id, "invoke", #"{"session":61,"command":"save"}"#), into: &bytes)
            }
            daemon.write(bytes)
        }

        @Test func memoryStaysBoundedWhileAClientThatDoesNotReadIsFannedOutTo() throws {
            let daemon = try startFanOut()
            let baseline = residentKilobytes(of: daemon.process)
            sendSaves(daemon, count: 150)  // about 100 MB owed; reading it all back is what takes time here
            // The daemon writes until the pipe is full, then blocks: give it time to get there.
            var peak = 0
            for _ in 0..<20 {
                Thread.sleep(forTimeInterval: 0.1)
                peak = max(peak, residentKilobytes(of: daemon.process))
            }
            #expect(peak - baseline < 10 * 1024, "RSS grew from \(baseline) kB to \(peak) kB while the client did not read")
            // Reading again, every save is answered, in order.
            var answered = 0
            while answered < 150, let body = daemon.readBody(timeout: 60) {
                if String(decoding: body, as: UTF8.self).contains(#""id":\#(101 + answered),"result""#) { answered += 1 }
            }
            #expect(answered == 150)
        }

        @Test func sigtermEndsADaemonBlockedWritingWithinTwoSeconds() throws {
            let daemon = try startFanOut()
            sendSaves(daemon)
            Thread.sleep(forTimeInterval: 1)  // blocked writing by now: the client reads nothing
            let signalled = Date()
            daemon.process.terminate()  // SIGTERM
            let code = daemon.waitForExit(timeout: 10)
            let elapsed = Date().timeIntervalSince(signalled)
            #expect(code == 0)
            #expect(elapsed < 2.5, "SIGTERM took \(elapsed) s")  // the promise is 2 s; 0.5 s for a loaded machine
        }

        @Test func aClientThatClosesItsEndIsNoticedAtTheFirstFailedWrite() throws {
            let daemon = try startFanOut()
            daemon.closeOutput()
            sendSaves(daemon)
            // Without the bound, the daemon built all 420 MB of answers before its first write.
            let code = daemon.waitForExit(timeout: 10)
            #expect(code == 0)
        }
    }
}
