#if canImport(Glibc)
import Glibc
#endif

/// A spawned daemon (or rawpipe) and the framing client talking to it.
final class Client {
    let child: ChildProcess
    let reader: FrameReader
    /// Frames classified so far; every 1024th is also parsed fully and compared.
    private(set) var framesSeen = 0

    init(path: String, arguments: [String] = [], pinning: Pinning = .unpinned) throws(BenchError) {
        child = try ChildProcess(path: path, arguments: arguments, prefix: pinning.commandPrefix)
        reader = FrameReader(fd: child.outputFD)
    }

    func send(_ bytes: [UInt8]) throws(BenchError) {
        try writeAll(child.inputFD, bytes)
    }

    /// Classifies a frame, cross-checking a sample of them against the full parser.
    @inline(__always)
    func classify(_ frame: Frame) throws(BenchError) -> Inbound {
        let message = MessageScanner.classify(frame)
        framesSeen &+= 1
        if framesSeen & 1023 == 1 { try MessageScanner.crossCheck(frame, message) }
        return message
    }

    /// Sends one request and reads up to its response (cold paths: opening sessions, set-up).
    /// Returns the response body and the notifications that came before it.
    @discardableResult
    func call(id: Int, method: String, params: String) throws(BenchError) -> (response: [UInt8], before: [Inbound]) {
        try send(Requests.encode(id: id, method: method, params: params))
        var before: [Inbound] = []
        while true {
            let frame = try reader.nextFrame()
            let message = try classify(frame)
            switch message {
            case .response(id, let isError, _):
                if isError { throw BenchError("\(method) \(params) failed: \(frame.text)") }
                return (frame.bytes, before)
            case .response:
                throw BenchError("a response out of order while waiting for id \(id): \(frame.text)")
            case .didChange:
                before.append(message)
            case .other:
                throw BenchError("an unexpected message while waiting for id \(id): \(frame.text)")
            }
        }
    }

    /// Closes the child's stdin and waits for it to exit; throws unless it exits 0.
    func finish() throws(BenchError) {
        let code = child.finish()
        if code != 0 { throw BenchError("the child exited with code \(code)") }
    }
}

/// The integer after `"key":` in a JSON text (cold paths).
func integer(after key: String, in body: [UInt8]) -> Int? {
    body.withUnsafeBufferPointer { buffer in
        MessageScanner.integer(after: key, in: Frame(base: buffer.baseAddress!, count: buffer.count))
    }
}

/// The checks of a stream of `setField`s on one email session, alternating a valid and an invalid
/// address, with consecutive ids: each request must be answered by exactly one `didChange` of that
/// session (revision one more than the last, `cause` its id) and then its response (same id, the
/// oldest unanswered; result `{"revision":R}` with that same revision).
struct EmailSequence {
    let session: Int
    private(set) var lastRevision: Int
    /// The id of the next request to send, and of the oldest unanswered one.
    private(set) var nextSendID: Int
    private(set) var nextAnswerID: Int
    private var changeSeenFor = -1
    private var nextValid = true
    private(set) var responses = 0
    private(set) var didChanges = 0

    init(session: Int, revision: Int, firstID: Int) {
        self.session = session
        lastRevision = revision
        nextSendID = firstID
        nextAnswerID = firstID
    }

    @inline(__always)
    mutating func appendRequest(to out: ByteBuffer) {
        Requests.appendSetEmail(id: nextSendID, session: session, valid: nextValid, to: out)
        nextSendID += 1
        nextValid.toggle()
    }

    /// Checks one message; true when it is the response that completes the oldest request.
    @inline(__always)
    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        switch message {
        case .didChange(let changed, let revision, let cause):
            guard changed == session, revision == lastRevision + 1, cause == nextAnswerID,
                  changeSeenFor != nextAnswerID else {
                throw BenchError("""
                    unexpected didChange (session \(changed), revision \(revision), cause \(cause.map(String.init) ?? "none")); \
                    expected session \(session), revision \(lastRevision + 1), cause \(nextAnswerID), once: \(frame.text)
                    """)
            }
            lastRevision = revision
            changeSeenFor = cause!
            didChanges += 1
            return false
        case .response(let id, let isError, let revision):
            guard id == nextAnswerID, !isError, changeSeenFor == id, revision == lastRevision else {
                throw BenchError("""
                    unexpected response (id \(id), error \(isError), revision \(revision.map(String.init) ?? "none")); \
                    expected id \(nextAnswerID) after its didChange, revision \(lastRevision): \(frame.text)
                    """)
            }
            nextAnswerID += 1
            responses += 1
            return true
        case .other:
            throw BenchError("unexpected message: \(frame.text)")
        }
    }
}

/// Opens an email session; returns its id and revision (for rawpipe, which does not know sessions:
/// session 1 and the revision of its canned answer).
func openEmailSession(_ client: Client, id: Int) throws(BenchError) -> (session: Int, revision: Int) {
    let (response, _) = try client.call(id: id, method: "session/open", params: #"{"type":"email"}"#)
    return (integer(after: "session", in: response) ?? 1, integer(after: "revision", in: response) ?? 0)
}
