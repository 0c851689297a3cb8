#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Reads framed JSON messages from a file descriptor on a thread of its own.
///
/// Framing and JSON parsing happen on that thread, off the main actor. Parsed messages wait in a
/// queue, in arrival order, until the consumer takes them with ``takeAll()``; `onReadable` is called
/// once each time the queue goes from empty to non-empty, so the consumer can schedule one drain
/// for any number of messages.
public final class MessageReader: Sendable {
    public let fileDescriptor: Int32
    private let maximumDepth: Int
    private let maximumMessageSize: Int
    private let state = Mutex(State())
    private let detected = Mutex<Framing?>(nil)

    private struct State {
        var queue: [Inbound] = []
    }

    public init(fileDescriptor: Int32, maximumMessageSize: Int = 64 << 20, maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.fileDescriptor = fileDescriptor
        self.maximumMessageSize = maximumMessageSize
        self.maximumDepth = maximumDepth
    }

    /// The framing the client uses, once its first byte has arrived.
    public var framing: Framing? { detected.withLock { $0 } }

    /// Starts the reading thread. It ends after delivering ``Inbound/end``.
    public func start(onReadable: @escaping @Sendable () -> Void) {
        startThread { [self] in readLoop(onReadable: onReadable) }
    }

    /// Everything read so far and not yet taken, oldest first.
    public func takeAll() -> [Inbound] {
        state.withLock { state in
            let items = state.queue
            state.queue = []
            return items
        }
    }

    private func readLoop(onReadable: @Sendable () -> Void) {
        var decoder = FrameDecoder(maximumMessageSize: maximumMessageSize)
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
        switch event {
        case .error(let message):
            return .malformed(.parseError(message), body: [])
        case .frame(let body):
            do {
                return .message(try JSONParser.parse(body, maximumDepth: maximumDepth), body: body)
            } catch {
                return .malformed(.parseError(error.description), body: body)
            }
        }
    }

    private func deliver(_ items: [Inbound], onReadable: @Sendable () -> Void) {
        let wasEmpty = state.withLock { state in
            let wasEmpty = state.queue.isEmpty
            state.queue.append(contentsOf: items)
            return wasEmpty
        }
        if wasEmpty { onReadable() }
    }
}
