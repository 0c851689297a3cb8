#if canImport(Glibc)
import Glibc
#endif

/// One client of `binderyd --listen`, on a connected Unix-domain socket: read, framed and parsed on
/// the main thread in ``MainLoop``, like stdio, and answered through a buffer of its own that never
/// blocks, so that a client that does not read cannot hold up the others.
///
/// Output: ``send(_:)`` frames a body into the client's buffer; ``flush()`` writes what the socket
/// takes without blocking, and the rest is written as the socket drains (`POLLOUT`). Past
/// ``Limits/pauseInput`` bytes unwritten, the client's input is no longer read (its own requests
/// wait: backpressure, as on stdio); past ``Limits/maximumBacklog`` (other clients' changes keep
/// coming to a client that does not read) the client is disconnected: ``onLost`` is called, the
/// socket is closed, and what it was owed is dropped. Memory per client stays under that bound.
///
/// Main actor only, like the server that uses it.
@MainActor
public final class SocketConnection: Connection {
    /// The output bounds of one client.
    public struct Limits: Sendable, Equatable {
        /// Unwritten bytes past which the client's input is no longer read, until they are written.
        public var pauseInput = 256 << 10
        /// Unwritten bytes past which the client is disconnected (`--max-client-backlog`).
        public var maximumBacklog = 16 << 20
        public init() {}
    }

    public let descriptor: Int32
    private let readerLimits: MessageReader.Limits
    private let limits: Limits
    private var decoder: FrameDecoder
    private var keepsBodies = false
    private var handler: (@MainActor ([Inbound]) -> Void)?
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var inputEnded = false
    private var isClosing = false
    private var isFinished = false
    /// Called once when the client is gone before the exchange ended: the socket failed, the peer
    /// hung up, or its backlog passed the limit. The argument says why, for the log.
    public var onLost: (@MainActor (String) -> Void)?
    /// Called once the socket is closed, whatever the reason.
    public var onFinished: (@MainActor () -> Void)?

    /// Takes ownership of a connected socket (made non-blocking here).
    public init(descriptor: Int32, readerLimits: MessageReader.Limits = .init(), limits: Limits = .init()) {
        self.descriptor = descriptor
        self.readerLimits = readerLimits
        self.limits = limits
        decoder = FrameDecoder(maximumMessageSize: readerLimits.messageSize)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    public var framing: Framing? { decoder.framing }

    /// Bytes framed and not yet written.
    public var backlog: Int { pending.count - pendingStart }

    public func start(_ handler: @escaping @MainActor ([Inbound]) -> Void) {
        self.handler = handler
        MainLoop.watch(descriptor, events: Int16(POLLIN)) { [weak self] events in
            self?.ready(events) ?? false
        }
    }

    private func ready(_ events: Int16) -> Bool {
        if events & Int16(POLLOUT) != 0 { writeSome() }
        guard !isFinished else { return false }
        let readable = events & Int16(POLLIN | POLLHUP | POLLERR) != 0
        if readable, !inputEnded, !isClosing, !isInputPaused { readAvailable() }
        guard !isFinished else { return false }
        if events & Int16(POLLERR) != 0 || (events & Int16(POLLHUP) != 0 && (inputEnded || isInputPaused)) {
            // The peer is gone: nothing more can be read or written.
            lose("the client hung up")
            return false
        }
        updateEvents()
        return true
    }

    private var isInputPaused: Bool { backlog > limits.pauseInput }

    private func readAvailable() {
        let count = Self.chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return }
            return lose("reading failed: \(String(cString: strerror(errno)))")
        }
        var items: [Inbound] = []
        if count == 0 {
            inputEnded = true
            if let last = decoder.finish() { items.append(Inbound(last, maximumDepth: readerLimits.depth)) }
            items.append(.end)
        } else {
            Self.chunk.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            while let item = decoder.nextInbound(maximumDepth: readerLimits.depth, keepingBody: keepsBodies) {
                items.append(item)
            }
        }
        if !items.isEmpty { handler?(items) }
    }

    private static var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    public func keepBodies() {
        keepsBodies = true
    }

    public func send(_ body: [UInt8]) {
        guard !isFinished else { return }
        let hadBacklog = backlog > 0
        (framing ?? .contentLength).frame(body, into: &pending)
        if hadBacklog, backlog > limits.maximumBacklog {
            return lose("it did not read its answers: more than \(limits.maximumBacklog) bytes waited (--max-client-backlog)")
        }
        if backlog > 64 * 1024 { writeSome() }
    }

    public func flush() {
        guard !isFinished else { return }
        writeSome()
        updateEvents()
    }

    public func close(exitCode: Int32) {
        guard !isClosing, !isFinished else { return }
        isClosing = true
        writeSome()
        if !isFinished, backlog > 0 {
            // What is owed goes out as the client reads, for five seconds at most.
            updateEvents()
            Task { @MainActor [weak self] in
                try? await Task.sleep(for: .seconds(5))
                self?.finish()
            }
            return
        }
        finish()
    }

    /// Writes what the socket takes now; the rest waits for `POLLOUT`.
    private func writeSome() {
        while backlog > 0, !isFinished {
            let written = pending.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + pendingStart, buffer.count - pendingStart)
            }
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                return lose("writing failed: \(String(cString: strerror(errno)))")
            }
            pendingStart += written
        }
        if backlog == 0 {
            pending.removeAll(keepingCapacity: pending.capacity <= 256 * 1024)
            pendingStart = 0
            if isClosing { finish() }
        } else if pendingStart > 64 * 1024, pendingStart * 2 > pending.count {
            pending.removeSubrange(0..<pendingStart)
            pendingStart = 0
        }
    }

    private func updateEvents() {
        guard !isFinished else { return }
        var events: Int16 = 0
        if !inputEnded, !isClosing, !isInputPaused { events |= Int16(POLLIN) }
        if backlog > 0 { events |= Int16(POLLOUT) }
        MainLoop.setEvents(descriptor, events)
    }

    private func lose(_ reason: String) {
        guard !isFinished else { return }
        let onLost = self.onLost
        self.onLost = nil
        finish()
        onLost?(reason)
    }

    private func finish() {
        guard !isFinished else { return }
        isFinished = true
        MainLoop.unwatch(descriptor)
        Glibc.close(descriptor)
        pending = []
        pendingStart = 0
        onFinished?()
        onFinished = nil
    }
}
