/// The client alone, no process and no system calls: encode `requests` setFields in batches of
/// `window` and scan and check the `didChange` + response frames binderyd would answer them with
/// (built in memory beforehand). Its requests per second bound what the pipelined driver can
/// measure; it should be far above both the daemon and rawpipe.
struct ClientCostResult {
    var requests: Int
    var nanoseconds: UInt64
    /// Encoding the requests alone, and scanning and checking the replies alone.
    var encodeNanoseconds: UInt64
    var scanNanoseconds: UInt64
    var nanosecondsPerRequest: Double { Double(nanoseconds) / Double(requests) }
    var requestsPerSecond: Double { Double(requests) / (Double(nanoseconds) / 1e9) }
}

func measureClientCost(requests: Int, window: Int) throws(BenchError) -> ClientCostResult {
    var replies: [UInt8] = []
    replies.reserveCapacity(requests * 240)
    for index in 0..<requests {
        let id = index + 2
        let revision = index + 1
        let valid = index % 2 == 0
        let notice = #"{"jsonrpc":"2.0","method":"didChange","params":{"session":1,"revision":\#(revision),"changes":{"isValid":\#(valid),"validationMessage":"Email is \#(valid ? "valid" : "invalid")"},"cause":\#(id)}}"#
        let response = #"{"jsonrpc":"2.0","id":\#(id),"result":{"revision":\#(revision)}}"#
        for body in [notice, response] {
            replies.append(contentsOf: Array("Content-Length: \(body.utf8.count)\r\n\r\n".utf8))
            replies.append(contentsOf: Array(body.utf8))
        }
    }
    let reader = FrameReader(preloaded: replies)
    var sequence = EmailSequence(session: 1, revision: 0, firstID: 2)
    let out = ByteBuffer(capacity: window * 256)
    var checked = 0
    var sink = 0

    let start = monotonicNanos()
    var sent = 0
    while sent < requests {
        out.removeAll()
        let batch = min(window, requests - sent)
        for _ in 0..<batch { sequence.appendRequest(to: out) }
        sink &+= out.count
        sent += batch
        var answered = 0
        while answered < batch, let frame = try reader.next() {
            let message = MessageScanner.classify(frame)
            checked &+= 1
            if checked & 1023 == 1 { try MessageScanner.crossCheck(frame, message) }
            if try sequence.receive(message, frame) { answered += 1 }
        }
    }
    let elapsed = monotonicNanos() - start

    // The two halves on their own: encoding only, then scanning and checking only.
    let encodeStart = monotonicNanos()
    var encoder = EmailSequence(session: 1, revision: 0, firstID: 2)
    for _ in 0..<requests {
        out.removeAll()
        encoder.appendRequest(to: out)
        sink &+= out.count
    }
    let encodeEnd = monotonicNanos()
    let scanReader = FrameReader(preloaded: replies)
    var scanner = EmailSequence(session: 1, revision: 0, firstID: 2)
    let scanStart = monotonicNanos()
    while let frame = try scanReader.next() { _ = try scanner.receive(MessageScanner.classify(frame), frame) }
    let scanEnd = monotonicNanos()

    guard sequence.responses == requests, sink > 0 else { throw BenchError("client cost: only \(sequence.responses) responses checked") }
    guard scanner.responses == requests else { throw BenchError("client cost: scan-only pass checked \(scanner.responses) responses") }
    return ClientCostResult(requests: requests, nanoseconds: elapsed,
                            encodeNanoseconds: encodeEnd - encodeStart, scanNanoseconds: scanEnd - scanStart)
}
