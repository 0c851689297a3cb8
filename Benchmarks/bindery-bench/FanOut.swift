/// Fan-out: `sessions` open `movieList` sessions and one `addMovie` session with a title; the time
/// from sending its `save` to having read every `movieList` session's `didChange` (revision 1, cause
/// the save, carrying the title) and the save's response. Each run uses a fresh daemon, so each
/// measures exactly one save; the figure is the median of the runs.
struct FanOutResult {
    var sessions: Int
    var times: Distribution
}

/// Opens sessions of one type, pipelined: request k opens session `firstSession + k`.
private struct OpenSessionsWork: PipelineWork {
    let type: String
    let firstID: Int
    let firstSession: Int
    var nextAnswer = 0

    mutating func appendRequest(_ index: Int, to out: ByteBuffer) {
        Requests.append(id: firstID + index, method: "session/open", params: #"{"type":"\#(type)"}"#, to: out)
    }

    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        guard case .response(firstID + nextAnswer, false, _) = message,
              MessageScanner.integer(after: "session", in: frame) == firstSession + nextAnswer else {
            throw BenchError("expected the open of session \(firstSession + nextAnswer): \(frame.text)")
        }
        nextAnswer += 1
        return true
    }
}

func measureFanOut(path: String, sessions: Int, runs: Int, window: Int, pinning: Pinning) throws(BenchError) -> FanOutResult {
    var samples: [UInt64] = []
    for run in 0..<runs {
        try pinning.run { () throws(BenchError) in
            let client = try Client(path: path, pinning: pinning)
            var open = OpenSessionsWork(type: "movieList", firstID: 1, firstSession: 1)
            _ = try runPipeline(client, count: sessions, window: window, work: &open)
            let (opened, _) = try client.call(id: sessions + 1, method: "session/open", params: #"{"type":"addMovie"}"#)
            guard let editor = integer(after: "session", in: opened) else { throw BenchError("no session in \(opened)") }
            let title = "Alien \(run + 1)"
            try client.call(id: sessions + 2, method: "setField",
                            params: #"{"session":\#(editor),"field":"title","value":"\#(title)"}"#)
            let saveID = sessions + 3
            let save = Requests.encode(id: saveID, method: "invoke", params: #"{"session":\#(editor),"command":"save"}"#)
            let titleBytes = Array(#""fullTitle":"\#(title)""#.utf8)
            var seen = [Bool](repeating: false, count: sessions + 1)
            var changed = 0

            let start = monotonicNanos()
            try client.send(save)
            receiving: while true {
                let frame = try client.reader.nextFrame()
                let message = try client.classify(frame)
                switch message {
                case .didChange(let session, 1, saveID) where session >= 1 && session <= sessions && !seen[session]:
                    guard frame.contains(titleBytes) else { throw BenchError("a didChange without the new movie: \(frame.text)") }
                    seen[session] = true
                    changed += 1
                case .response(saveID, false, _):
                    break receiving
                default:
                    throw BenchError("fan-out: unexpected \(message): \(frame.text.prefix(300))")
                }
            }
            let elapsed = monotonicNanos() - start
            guard changed == sessions else {
                throw BenchError("fan-out: \(changed) didChanges before the save's response, expected \(sessions)")
            }
            samples.append(elapsed)
            try client.finish()
        }
    }
    return FanOutResult(sessions: sessions, times: Distribution(samples))
}
