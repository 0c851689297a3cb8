#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Writes framed messages to a file descriptor, serialised so frames never interleave.
///
/// ``enqueue(_:framing:)`` only appends to an in-memory buffer; ``flush()`` writes it out with as few
/// `write` calls as the pipe allows. The server enqueues everything one drain of the input produces
/// and flushes once, so pipelined requests share system calls while a lone request is answered at
/// once. Safe to call from any thread.
public final class MessageWriter: Sendable {
    public let fileDescriptor: Int32
    private let pending = Mutex<[UInt8]>([])
    /// Held while writing, so two flushes from different threads cannot interleave their bytes.
    private let writing = Mutex(())

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    /// Frames a serialized message body and queues it for the next ``flush()``.
    public func enqueue(_ body: [UInt8], framing: Framing) {
        pending.withLock { framing.frame(body, into: &$0) }
    }

    /// Writes everything queued. Throws ``WriteError/closed`` once the reader has gone away.
    public func flush() throws(WriteError) {
        try writing.withLock { (_) throws(WriteError) in
            var bytes: [UInt8] = []
            pending.withLock { swap(&bytes, &$0) }
            guard !bytes.isEmpty else { return }
            try writeAll(bytes)
        }
    }

    private func writeAll(_ bytes: [UInt8]) throws(WriteError) {
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fileDescriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw .closed(errno: failure) }
    }

    public enum WriteError: Error {
        /// The other end is closed (EPIPE) or the descriptor failed otherwise.
        case closed(errno: Int32)
    }
}
