/// Round trip: one `setField` at a time on an email session, alternating a valid and an invalid
/// address, so that each request is answered by a `didChange` and its response. Bench and child are
/// pinned to one core. The latency of a request is from just before its `write` to having read and
/// checked its response.
struct RoundTripResult {
    var latencies: Distribution
    var childAffinity: [String]
}

func measureRoundTrip(path: String, count: Int, warmup: Int, pinning: Pinning) throws(BenchError) -> RoundTripResult {
    try pinning.run { () throws(BenchError) -> RoundTripResult in
        let client = try Client(path: path, pinning: pinning)
        let (session, revision) = try openEmailSession(client, id: 1)
        var sequence = EmailSequence(session: session, revision: revision, firstID: 2)
        let samples = try timeSetFields(fd: client.child.inputFD, reader: client.reader, sequence: &sequence,
                                        count: count, warmup: warmup, classify: client.classify)
        guard sequence.responses == warmup + count, sequence.didChanges == warmup + count else {
            throw BenchError("round trip: \(sequence.responses) responses and \(sequence.didChanges) didChanges for \(warmup + count) requests")
        }
        let affinity = client.child.threadAffinities()
        try client.finish()
        return RoundTripResult(latencies: Distribution(samples), childAffinity: affinity)
    }
}

/// Times `count` requests of `sequence`, one at a time, after `warmup` more: each from just before
/// its `write` to having read (and checked) its response, every frame read told apart by `classify`.
func timeSetFields(fd: Int32, reader: FrameReader, sequence: inout EmailSequence, count: Int, warmup: Int,
                   classify: (Frame) throws(BenchError) -> Inbound) throws(BenchError) -> [UInt64] {
    let request = ByteBuffer(capacity: 256)
    var samples: [UInt64] = []
    samples.reserveCapacity(count)
    for index in 0..<(warmup + count) {
        request.removeAll()
        sequence.appendRequest(to: request)
        let start = monotonicNanos()
        try writeAll(fd, request)
        while true {
            let frame = try reader.nextFrame()
            if try sequence.receive(try classify(frame), frame) { break }
        }
        if index >= warmup { samples.append(monotonicNanos() - start) }
    }
    return samples
}
