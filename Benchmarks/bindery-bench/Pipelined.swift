/// Pipelined: the round trip's requests with `window` of them in flight, from one client thread.
/// Every response and every `didChange` is checked in order (see ``EmailSequence``).
struct PipelinedResult {
    var requests: Int
    var stats: PipelineStats
    var didChanges: Int
    /// The child's CPU time (user + system) over the measured requests.
    var childCPUNanoseconds: UInt64
    var cpuMicrosecondsPerRequest: Double { Double(childCPUNanoseconds) / 1e3 / Double(requests) }
    var requestsPerSecond: Double { Double(requests) / (Double(stats.nanoseconds) / 1e9) }
}

private struct EmailPipelineWork: PipelineWork {
    var sequence: EmailSequence

    @inline(__always)
    mutating func appendRequest(_ index: Int, to out: ByteBuffer) {
        sequence.appendRequest(to: out)
    }

    @inline(__always)
    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool {
        try sequence.receive(message, frame)
    }
}

func measurePipelined(path: String, count: Int, window: Int, pinning: Pinning) throws(BenchError) -> PipelinedResult {
    try pinning.run { () throws(BenchError) -> PipelinedResult in
        let client = try Client(path: path, pinning: pinning)
        let (session, revision) = try openEmailSession(client, id: 1)
        var work = EmailPipelineWork(sequence: EmailSequence(session: session, revision: revision, firstID: 2))
        let cpuBefore = client.child.cpuNanoseconds() ?? 0
        let stats = try runPipeline(client, count: count, window: window, work: &work)
        let cpuAfter = client.child.cpuNanoseconds() ?? cpuBefore
        guard work.sequence.responses == count, work.sequence.didChanges == count else {
            throw BenchError("pipelined: \(work.sequence.responses) responses and \(work.sequence.didChanges) didChanges for \(count) requests")
        }
        try client.finish()
        return PipelinedResult(requests: count, stats: stats, didChanges: work.sequence.didChanges,
                               childCPUNanoseconds: cpuAfter - cpuBefore)
    }
}
