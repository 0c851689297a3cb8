#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes framed messages to a file descriptor, with a bounded buffer.
///
/// ``enqueue(_:framing:)`` appends to an in-memory buffer and writes it out once it holds more than
/// ``flushThreshold`` bytes; ``flush()`` writes the rest. So pipelined answers share system calls,
/// while what waits in memory stays under the threshold plus one message, however much a turn
/// produces and however slowly the client reads: a write to a client that does not read blocks, and
/// the caller stops producing until it does (backpressure).
///
/// Not thread-safe: one owner (the main actor) enqueues and flushes.
public final class MessageWriter {
    public let fileDescriptor: Int32
    /// Bytes buffered before a write is forced.
    public let flushThreshold: Int
    private var pending: [UInt8] = []
    /// Set by the first write that fails; everything after it is dropped.
    public private(set) var failure: WriteError?

    public init(fileDescriptor: Int32, flushThreshold: Int = 64 * 1024) {
        self.fileDescriptor = fileDescriptor
        self.flushThreshold = flushThreshold
        pending.reserveCapacity(flushThreshold + 4096)
    }

    /// Frames a serialized message body and queues it; writes the buffer once it passes the threshold.
    public func enqueue(_ body: [UInt8], framing: Framing) {
        body.withUnsafeBufferPointer { enqueue($0, framing: framing) }
    }

    public func enqueue(_ body: UnsafeBufferPointer<UInt8>, framing: Framing) {
        guard failure == nil else { return }
        framing.frame(body, into: &pending)
        if pending.count > flushThreshold { flush() }
    }

    /// Writes everything queued. After a failure (the client closed its end), ``failure`` is set.
    public func flush() {
        guard failure == nil, !pending.isEmpty else { return }
        failure = writeAll(pending)
        pending.removeAll(keepingCapacity: pending.capacity <= 4 * flushThreshold)
    }

    private func writeAll(_ bytes: [UInt8]) -> WriteError? {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return .closed(errno: errno)
                }
                offset += written
            }
            return nil
        }
    }

    public enum WriteError: Error, Equatable {
        /// The other end is closed (EPIPE) or the descriptor failed otherwise.
        case closed(errno: Int32)
    }
}
