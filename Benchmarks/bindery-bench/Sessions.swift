/// Sessions: open `count` email sessions and set the email of each (a valid address, so each
/// answers a `didChange` at revision 1), pipelined; the time that takes, and the daemon's resident
/// memory per session: (peak RSS (VmHWM) - RSS right after `initialize`) / count.
struct SessionsResult {
    var count: Int
    var nanoseconds: UInt64
    var rssAfterInitialize: Int
    var peakRSS: Int
    var rssAtEnd: Int
    var peakBytesPerSession: Double { Double(peakRSS - rssAfterInitialize) / Double(count) }
    var endBytesPerSession: Double { Double(rssAtEnd - rssAfterInitialize) / Double(count) }
}

/// Request 2k opens session k+1; request 2k+1 sets its email.
private struct OpenAndSetWork: PipelineWork {
    let firstID: Int
    var nextAnswer = 0
    var changeSeen = false

    mutating func appendRequest(_ index: Int, to out: ByteBuffer) {
        if index % 2 == 0 {
            Requests.append(id: firstID + index, method: "session/open", params: #"{"type":"email"}"#, to: out)
        } else {
            Requests.appendSetEmail(id: firstID + index, session: index / 2 + 1, valid: true, to: out)
        }
    }

    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        let id = firstID + nextAnswer
        let session = nextAnswer / 2 + 1
        if nextAnswer % 2 == 0 {
            guard case .response(id, false, _) = message,
                  MessageScanner.integer(after: "session", in: frame) == session else {
                throw BenchError("expected the open of session \(session) (id \(id)): \(frame.text)")
            }
            nextAnswer += 1
            return true
        }
        switch message {
        case .didChange(session, 1, id) where !changeSeen:
            changeSeen = true
            return false
        case .response(id, false, 1) where changeSeen:
            changeSeen = false
            nextAnswer += 1
            return true
        default:
            throw BenchError("expected didChange session \(session) revision 1 cause \(id), then response \(id): \(frame.text)")
        }
    }
}

func measureSessions(path: String, count: Int, window: Int, pinning: Pinning) throws(BenchError) -> SessionsResult {
    try pinning.run { () throws(BenchError) -> SessionsResult in
        let client = try Client(path: path, pinning: pinning)
        try client.call(id: 1, method: "initialize", params: "{}")
        guard let rssAfterInitialize = client.child.statusBytes("VmRSS") else {
            throw BenchError("cannot read VmRSS of pid \(client.child.pid)")
        }
        var work = OpenAndSetWork(firstID: 2)
        let stats = try runPipeline(client, count: 2 * count, window: window, work: &work)
        guard let peak = client.child.statusBytes("VmHWM"), let now = client.child.statusBytes("VmRSS") else {
            throw BenchError("cannot read VmHWM of pid \(client.child.pid)")
        }
        try client.finish()
        return SessionsResult(count: count, nanoseconds: stats.nanoseconds, rssAfterInitialize: rssAfterInitialize,
                              peakRSS: peak, rssAtEnd: now)
    }
}
