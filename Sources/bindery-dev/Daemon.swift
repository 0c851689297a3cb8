import Dispatch
import Glibc
import JSONRPC

/// One running daemon process: the user's product, spoken to in newline-delimited JSON.
///
/// Its stdout is read and parsed on a thread of its own and each message is handed to the main
/// actor, in order, through `onMessage`; its stderr is copied to bindery-dev's stderr as it comes,
/// and its last 8 KiB are kept for a report when it dies. Requests bindery-dev makes itself
/// (``call(_:_:timeout:)``) and the client's forwarded requests share one id counter, so a
/// response is told apart by its id alone. Everything but the two reader threads is the main actor's.
@MainActor
final class Daemon {
    /// Counts daemons from 1, for logs.
    let generation: Int
    let process: ChildProcess
    /// The schemas the daemon described when it started, by type name.
    var schemas: [String: Schema] = [:]
    /// The child view model types nested in those schemas, by Swift type name.
    var childSchemas: [String: Schema] = [:]
    private(set) var exitCode: Int32?
    private var nextID = 1
    private var calls: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
    private var stderrTail: [UInt8] = []
    private var onExitHandlers: [@MainActor (Int32) -> Void] = []

    /// Why a call to the daemon failed.
    struct CallError: Error, CustomStringConvertible {
        let code: Int
        let message: String
        let data: JSONValue?
        var description: String { message }
    }

    init(generation: Int, path: String, arguments: [String], onMessage: @escaping @MainActor (Daemon, JSONValue) -> Void) throws {
        self.generation = generation
        process = try ChildProcess(path: path, arguments: arguments)
        let pid = process.pid
        readToEnd(process.stdout, onChunk: makeLineSplitter { [weak self] values in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    guard let self else { return }
                    for value in values { onMessage(self, value) }
                }
            }
        }, onEnd: { [weak self] in
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.outputEnded() }
            }
        })
        readToEnd(process.stderr, onChunk: { [weak self] chunk in
            chunk.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.keepStderr(chunk) }
            }
        }, onEnd: { [weak self] in
            // The end of stderr comes when the process has ended (or closed it): reap it.
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self?.processEnded(code) }
            }
        })
    }

    /// Takes the types of a `viewModels/describe` result.
    func describe(_ result: JSONValue) {
        schemas = Schema.all(in: result)
        childSchemas = Schema.childTypes(in: result)
    }

    /// The schema of a session's type: a registered type, or a child's.
    func schema(of type: String) -> Schema? { schemas[type] ?? childSchemas[type] }

    /// The next request id on this daemon.
    func takeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }

    func send(_ message: JSONValue) {
        var line = message.bytes
        line.append(UInt8(ascii: "\n"))
        process.write(line)
    }

    /// Sends a request of bindery-dev's own and waits for its result.
    func call(_ method: String, _ params: JSONValue, timeout: Duration = .seconds(10)) async throws -> JSONValue {
        if let exitCode { throw CallError(code: -32603, message: "the daemon exited with code \(exitCode)", data: nil) }
        let id = takeID()
        send(request(id: id, method, params))
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { [weak self] in
            MainActor.assumeIsolated {
                self?.calls.removeValue(forKey: id)?.resume(throwing: CallError(
                    code: -32603, message: "the daemon did not answer \(method) within \(timeout)", data: nil))
            }
        }
        return try await withCheckedThrowingContinuation { calls[id] = $0 }
    }

    /// Completes a call of bindery-dev's own with `response`; false when the id is not one of them.
    func complete(_ response: JSONObject) -> Bool {
        guard let id = response["id"]?.intValue, let call = calls.removeValue(forKey: id) else { return false }
        if let error = response["error"] {
            call.resume(throwing: CallError(code: error["code"]?.intValue ?? 0,
                                            message: error["message"]?.stringValue ?? "\(error)", data: error["data"]))
        } else {
            call.resume(returning: response["result"] ?? .null)
        }
        return true
    }

    /// What the daemon last wrote to stderr, for a person: a crash's message and its place in the
    /// program (``CrashSummary``), else the last 2,000 characters.
    var stderrSummary: String { CrashSummary.of(String(decoding: stderrTail, as: UTF8.self)) }

    /// Runs `handler` with the exit code once the process has ended (at once if it has).
    func onExit(_ handler: @escaping @MainActor (Int32) -> Void) {
        if let exitCode { handler(exitCode) } else { onExitHandlers.append(handler) }
    }

    /// Ends the daemon as a client would: closes its input; if it is still running two seconds
    /// later, kills it.
    func retire() {
        process.closeStdin()
        DispatchQueue.main.asyncAfter(deadline: .now() + 2) { [self] in
            MainActor.assumeIsolated {
                if exitCode == nil { process.terminate(SIGKILL) }
            }
        }
    }

    /// Kills the daemon now (a candidate that failed).
    func kill() {
        process.closeStdin()
        if exitCode == nil { process.terminate(SIGKILL) }
    }

    private func keepStderr(_ chunk: [UInt8]) {
        stderrTail.append(contentsOf: chunk)
        if stderrTail.count > 8192 { stderrTail.removeFirst(stderrTail.count - 8192) }
    }

    /// The exit code, once the process has ended, kept until its stdout has been read to the end.
    private var reapedCode: Int32?
    private var stdoutOpen = true

    private func outputEnded() {
        stdoutOpen = false
        if let reapedCode { ended(reapedCode) }
    }

    private func processEnded(_ code: Int32) {
        reapedCode = code
        if !stdoutOpen { ended(code) }
    }

    /// Both the process and its stdout have ended: every message it wrote has been handled.
    private func ended(_ code: Int32) {
        guard exitCode == nil else { return }
        process.closeStdin()
        exitCode = code
        let failed = calls
        calls = [:]
        for call in failed.values {
            call.resume(throwing: CallError(code: -32603, message: "the daemon exited with code \(code)", data: nil))
        }
        let handlers = onExitHandlers
        onExitHandlers = []
        for handler in handlers { handler(code) }
    }
}

/// A chunk handler for a reader thread that cuts newline-delimited JSON into parsed messages.
private func makeLineSplitter(_ deliver: @escaping @Sendable ([JSONValue]) -> Void) -> @Sendable ([UInt8]) -> Void {
    final class Pending: @unchecked Sendable { var bytes: [UInt8] = [] }
    let pending = Pending()
    return { chunk in
        pending.bytes.append(contentsOf: chunk)
        var values: [JSONValue] = []
        var start = 0
        while let newline = pending.bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
            if newline > start, let value = try? JSONParser.parse(Array(pending.bytes[start..<newline])) {
                values.append(value)
            }
            start = newline + 1
        }
        pending.bytes.removeFirst(start)
        if !values.isEmpty { deliver(values) }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}
