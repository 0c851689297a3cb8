#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Reads framed JSON messages from a file descriptor on a thread of its own.
///
/// Framing and JSON parsing happen on that thread, off the main actor. Parsed messages wait in a
/// queue, in arrival order, until the consumer takes them with ``takeAll()``; `onReadable` is called
/// once each time the queue goes from empty to non-empty, so the consumer can schedule one drain
/// for any number of messages.
///
/// Backpressure: when `limits.readAhead` messages, or `limits.readAheadBytes` bytes of bodies, wait
/// untaken, the thread stops reading until the consumer takes them. A consumer that stalls (because
/// the client stopped reading its answers, so writing blocks) therefore stalls the reading too, and
/// the client's own writes block in the pipe: memory stays bounded by these limits plus one message.
public final class MessageReader: Sendable {
    /// What the reader refuses or holds back.
    public struct Limits: Sendable, Equatable {
        /// The largest message body read; a larger one is skipped and reported.
        public var messageSize = 16 << 20
        /// The deepest nesting of arrays and objects parsed.
        public var depth = JSONParser.defaultMaximumDepth
        /// Messages read ahead of the consumer before reading pauses.
        public var readAhead = 4096
        /// Bytes of bodies read ahead of the consumer before reading pauses (one message is always let in).
        public var readAheadBytes = 4 << 20

        public init() {}
    }

    public let fileDescriptor: Int32
    private let limits: Limits
    private let state = Mutex(State())
    private let detected = Mutex<Framing?>(nil)
    /// Signalled by ``takeAll()`` when the reading thread waits for room in the queue.
    private let room = DispatchSemaphore(value: 0)

    private struct State {
        var queue: [Inbound] = []
        var queuedBytes = 0
        var isWaitingForRoom = false
    }

    public init(fileDescriptor: Int32, limits: Limits = Limits()) {
        self.fileDescriptor = fileDescriptor
        self.limits = limits
    }

    /// The framing the client uses, once its first byte has arrived.
    public var framing: Framing? { detected.withLock { $0 } }

    /// Starts the reading thread. It ends after delivering ``Inbound/end``.
    public func start(onReadable: @escaping @Sendable () -> Void) {
        startThread { [self] in readLoop(onReadable: onReadable) }
    }

    /// Everything read so far and not yet taken, oldest first.
    public func takeAll() -> [Inbound] {
        let (items, wasWaiting) = state.withLock { state in
            let items = state.queue
            state.queue = []
            state.queuedBytes = 0
            defer { state.isWaitingForRoom = false }
            return (items, state.isWaitingForRoom)
        }
        if wasWaiting { room.signal() }
        return items
    }

    private func readLoop(onReadable: @Sendable () -> Void) {
        var decoder = FrameDecoder(maximumMessageSize: limits.messageSize)
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)
        defer { chunk.deallocate() }
        while true {
            let count = read(fileDescriptor, chunk.baseAddress, chunk.count)
            if count < 0, errno == EINTR { continue }
            var items: [Inbound] = []
            if count <= 0 {
                if let last = decoder.finish() { items.append(inbound(last)) }
                items.append(.end)
                deliver(items, onReadable: onReadable)
                return
            }
            decoder.append(UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
            while let event = decoder.next() { items.append(inbound(event)) }
            if let framing = decoder.framing, self.framing == nil { detected.withLock { $0 = framing } }
            if !items.isEmpty { deliver(items, onReadable: onReadable) }
        }
    }

    private func inbound(_ event: FrameEvent) -> Inbound {
        Inbound(event, maximumDepth: limits.depth)
    }

    private func deliver(_ items: [Inbound], onReadable: @Sendable () -> Void) {
        let bytes = items.reduce(0) { $0 + $1.bodySize }
        let (wasEmpty, mustWait) = state.withLock { state in
            let wasEmpty = state.queue.isEmpty
            state.queue.append(contentsOf: items)
            state.queuedBytes += bytes
            state.isWaitingForRoom = state.queue.count >= limits.readAhead || state.queuedBytes >= limits.readAheadBytes
            return (wasEmpty, state.isWaitingForRoom)
        }
        if wasEmpty { onReadable() }
        if mustWait { room.wait() }
    }
}

extension Inbound {
    /// The size of the body it carries, for the read-ahead bound.
    var bodySize: Int {
        switch self {
        case .message(_, let body), .malformed(_, let body): body.count
        case .request(let request, _): request.bodySize
        case .end: 0
        }
    }
}
