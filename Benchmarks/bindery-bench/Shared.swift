#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// The shared daemon (`binderyd --listen`): a didChange fanned out to many clients attached to one
/// keyed session, and one client's round trip through the `--remote` forwarder beside stdio.
struct SharedFanOutResult {
    var clients: Int
    /// Per write: from sending the `setField` to having read the last client's `didChange`.
    var times: Distribution
}

/// A `binderyd --listen` in a fresh temporary directory, stopped with SIGTERM at the end.
final class ListeningDaemon {
    let child: ChildProcess
    let directory: String
    let socketPath: String

    init(path: String, prefix: [String] = []) throws(BenchError) {
        var template = Array("/tmp/bindery-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        socketPath = directory + "/daemon.sock"
        child = try ChildProcess(path: path, arguments: ["--listen", socketPath], prefix: prefix)
        for _ in 0..<1000 {
            if let probe = try? UnixSocket.connect(to: socketPath) {
                close(probe)
                return
            }
            usleep(5000)
        }
        throw BenchError("binderyd --listen did not listen on \(socketPath)")
    }

    func connect() throws(BenchError) -> SocketClient {
        do {
            return SocketClient(fd: try UnixSocket.connect(to: socketPath))
        } catch {
            throw BenchError("\(error)")
        }
    }

    func stop() {
        kill(child.pid, SIGTERM)
        child.finish()
        rmdir(directory)
    }
}

/// One client on the daemon's socket, reading framed messages.
final class SocketClient {
    let fd: Int32
    let reader: FrameReader

    init(fd: Int32) {
        self.fd = fd
        reader = FrameReader(fd: fd, capacity: 1 << 16)
    }

    func send(_ bytes: [UInt8]) throws(BenchError) { try writeAll(fd, bytes) }

    /// Sends a request and reads up to its response; returns the response's body.
    func call(id: Int, method: String, params: String) throws(BenchError) -> [UInt8] {
        try send(Requests.encode(id: id, method: method, params: params))
        while true {
            let frame = try reader.nextFrame()
            if case .response(id, let isError, _) = MessageScanner.classify(frame) {
                if isError { throw BenchError("\(method) failed: \(frame.text)") }
                return frame.bytes
            }
        }
    }

    deinit { close(fd) }
}

/// `clients` clients attach to one keyed email session; one of them writes `writes` times,
/// alternating a valid and an invalid address (so every write changes `isValid` for everyone). Per
/// write: the time from sending it to having read, client after client, every client's didChange of
/// that revision (and the writer's response).
func measureSharedFanOut(path: String, clients count: Int, writes: Int) throws(BenchError) -> SharedFanOutResult {
    let daemon = try ListeningDaemon(path: path)
    defer { daemon.stop() }
    var clients: [SocketClient] = []
    var session = 0
    for index in 0..<count {
        let client = try daemon.connect()
        let opened = try client.call(id: 1, method: "session/open", params: #"{"type":"email","key":"bench"}"#)
        let id = integer(after: "session", in: opened) ?? 0
        if index == 0 { session = id } else if id != session { throw BenchError("client \(index) got session \(id)") }
        clients.append(client)
    }
    let writer = clients[0]
    let request = ByteBuffer(capacity: 256)
    var samples: [UInt64] = []
    for write in 0..<writes {
        let id = write + 2
        let revision = write + 1
        request.removeAll()
        Requests.appendSetEmail(id: id, session: session, valid: write % 2 == 0, to: request)
        let start = monotonicNanos()
        try writeAll(writer.fd, request)
        for (index, client) in clients.enumerated() {
            // Every client is told the revision; the writer then reads its response.
            var told = false
            reading: while true {
                let frame = try client.reader.nextFrame()
                switch MessageScanner.classify(frame) {
                case .didChange(session, revision, _) where !told:
                    told = true
                    if index != 0 { break reading }
                case .response(id, false, revision) where index == 0 && told:
                    break reading
                default:
                    throw BenchError("shared fan-out: client \(index) read \(frame.text.prefix(200))")
                }
            }
        }
        samples.append(monotonicNanos() - start)
    }
    return SharedFanOutResult(clients: count, times: Distribution(samples))
}

/// One client's round trips (setField, didChange, response) three ways: to a stdio daemon it spawns,
/// straight to a listening daemon's socket, and through `binderyd --remote` to that daemon.
struct RemoteRoundTripResult {
    var stdio: Distribution
    var socket: Distribution
    var remote: Distribution
}

func measureRemoteRoundTrip(path: String, count: Int, warmup: Int, pinning: Pinning) throws(BenchError) -> RemoteRoundTripResult {
    let stdio = try measureRoundTrip(path: path, count: count, warmup: warmup, pinning: pinning).latencies
    // Pinned like the stdio run: the daemon and the forwarder are spawned under the same pinning.
    return try pinning.run { () throws(BenchError) -> RemoteRoundTripResult in
        let daemon = try ListeningDaemon(path: path, prefix: pinning.commandPrefix)
        defer { daemon.stop() }
        let direct = try daemon.connect()
        let socket = try roundTrips(fd: direct.fd, reader: direct.reader, count: count, warmup: warmup)
        let forwarder = try Client(path: path, arguments: ["--remote", daemon.socketPath], pinning: pinning)
        let remote = try roundTrips(fd: forwarder.child.inputFD, reader: forwarder.reader, count: count, warmup: warmup)
        try forwarder.finish()
        return RemoteRoundTripResult(stdio: stdio, socket: Distribution(socket), remote: Distribution(remote))
    }
}

/// Opens an email session and times `count` setFields, one at a time, after `warmup` more.
private func roundTrips(fd: Int32, reader: FrameReader, count: Int, warmup: Int) throws(BenchError) -> [UInt64] {
    try writeAll(fd, Requests.encode(id: 1, method: "session/open", params: #"{"type":"email"}"#))
    var session = 0
    while true {
        let frame = try reader.nextFrame()
        if case .response(1, false, _) = MessageScanner.classify(frame) {
            session = MessageScanner.integer(after: "session", in: frame) ?? 0
            break
        }
    }
    var sequence = EmailSequence(session: session, revision: 0, firstID: 2)
    return try timeSetFields(fd: fd, reader: reader, sequence: &sequence, count: count, warmup: warmup,
                             classify: MessageScanner.classify)
}
