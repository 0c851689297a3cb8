#if canImport(Glibc)
import Glibc
#endif

/// What a pipelined run sends and how it checks what comes back.
protocol PipelineWork {
    /// Appends request number `index` (0-based, in order) to `out`.
    mutating func appendRequest(_ index: Int, to out: ByteBuffer)
    /// Checks one message; true when it is the response that completes a request.
    mutating func receive(_ message: Inbound, _ frame: Frame) throws(BenchError) -> Bool
}

struct PipelineStats {
    var nanoseconds: UInt64 = 0
    var writeCalls = 0
    var readCalls = 0
    var bytesRead = 0
}

/// Sends `count` requests keeping up to `window` unanswered, from one thread: a non-blocking write
/// of every request the window allows, then blocking reads (poll only while a write is pending);
/// every complete frame is checked as it arrives.
func runPipeline<Work: PipelineWork>(
    _ client: Client, count: Int, window: Int, work: inout Work
) throws(BenchError) -> PipelineStats {
    let writeFD = client.child.inputFD
    let reader = client.reader
    let flags = fcntl(writeFD, F_GETFL)
    _ = fcntl(writeFD, F_SETFL, flags | O_NONBLOCK)
    defer { _ = fcntl(writeFD, F_SETFL, flags) }

    var stats = PipelineStats()
    let readsBefore = reader.readCalls
    let bytesBefore = reader.bytesRead
    let out = ByteBuffer(capacity: window * 256)
    var written = 0
    var sent = 0
    var done = 0
    let start = monotonicNanos()

    while done < count {
        if written == out.count, sent < count, sent - done < window {
            out.removeAll()
            written = 0
            while sent < count, sent - done < window {
                work.appendRequest(sent, to: out)
                sent += 1
            }
        }
        if written < out.count {
            let result = write(writeFD, out.base + written, out.count - written)
            if result > 0 {
                written += result
                stats.writeCalls += 1
            } else if result < 0, errno != EAGAIN, errno != EINTR {
                throw BenchError("write to the child failed: \(String(cString: strerror(errno)))")
            }
        }

        var answered = false
        while let frame = try reader.next() {
            if try work.receive(try client.classify(frame), frame) {
                done += 1
                answered = true
            }
        }
        if done == count { break }
        // Refill the window before blocking, if answers freed room.
        if answered, written == out.count, sent < count { continue }

        if written < out.count {
            var fds = [pollfd(fd: reader.fd, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: writeFD, events: Int16(POLLOUT), revents: 0)]
            let ready = poll(&fds, 2, -1)
            if ready < 0, errno != EINTR { throw BenchError("poll failed: errno \(errno)") }
            if fds[0].revents != 0, !(try reader.fill()) {
                throw BenchError("the child closed its output after \(done) of \(count) responses")
            }
        } else if !(try reader.fill()) {
            throw BenchError("the child closed its output after \(done) of \(count) responses")
        }
    }
    stats.nanoseconds = monotonicNanos() - start
    stats.readCalls = reader.readCalls - readsBefore
    stats.bytesRead = reader.bytesRead - bytesBefore
    if reader.hasPartialData { throw BenchError("bytes after the last response") }
    return stats
}
