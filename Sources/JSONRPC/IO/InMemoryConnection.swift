/// A connection held in memory, for running a server in-process: a test delivers messages and reads
/// what the server sent, with no process, pipe or thread.
///
/// ```swift
/// let connection = InMemoryConnection()
/// let server = Server(registry: registry, connection: connection)
/// server.start()
/// connection.deliver(#"{"jsonrpc":"2.0","id":1,"method":"session/open","params":{"type":"email"}}"#)
/// let reply = await connection.next()
/// ```
@MainActor
public final class InMemoryConnection: Connection {
    /// The framing of what ``deliver(bytes:)`` received, or the one given at init.
    public var framing: Framing? { decoder.framing ?? givenFraming }
    private let givenFraming: Framing
    private let limits: MessageReader.Limits
    private var decoder: FrameDecoder
    private var handler: (@MainActor ([Inbound]) -> Void)?
    /// What was delivered before the server started.
    private var early: [Inbound] = []
    /// Bodies sent and not yet taken by ``next(timeout:)``, oldest first.
    public private(set) var sent: [[UInt8]] = []
    /// The exit code the server closed the exchange with, once it has.
    public private(set) var exitCode: Int32?
    private var waiter: CheckedContinuation<Void, Never>?

    /// - Parameters:
    ///   - framing: the framing to report before any bytes arrive.
    ///   - limits: the message size and depth enforced on ``deliver(bytes:)``, as the stdio reader does.
    public init(framing: Framing = .newlineDelimited, limits: MessageReader.Limits = .init()) {
        givenFraming = framing
        self.limits = limits
        decoder = FrameDecoder(maximumMessageSize: limits.messageSize)
    }

    public func start(_ handler: @escaping @MainActor ([Inbound]) -> Void) {
        self.handler = handler
        if !early.isEmpty { handler(early) }
        early = []
    }

    /// Hands the server one message body, as the reader would after framing it: parsed, or
    /// reported as malformed.
    public func deliver(_ body: [UInt8]) {
        deliver([Inbound(.frame(body))])
    }

    public func deliver(_ text: String) { deliver(Array(text.utf8)) }

    /// Hands the server raw bytes as a client would write them, framed in either framing: they go
    /// through the same ``FrameDecoder`` as the stdio reader's, so framing errors come out the same.
    public func deliver(bytes: [UInt8]) {
        decoder.append(bytes)
        var items: [Inbound] = []
        while let event = decoder.next() { items.append(Inbound(event, maximumDepth: limits.depth)) }
        if !items.isEmpty { deliver(items) }
    }

    /// Tells the server the client's input ended (after what is left of a frame, if anything).
    public func deliverEnd() {
        var items: [Inbound] = []
        if let last = decoder.finish() { items.append(Inbound(last, maximumDepth: limits.depth)) }
        deliver(items + [.end])
    }

    private func deliver(_ items: [Inbound]) {
        if let handler { handler(items) } else { early += items }
    }

    public func send(_ body: [UInt8]) {
        guard exitCode == nil else { return }
        sent.append(body)
        wake()
    }

    public func flush() {}

    public func close(exitCode: Int32) {
        guard self.exitCode == nil else { return }
        self.exitCode = exitCode
        wake()
    }

    /// The oldest body sent and not yet taken; waits for one up to `timeout`, letting the server's
    /// tasks run meanwhile. Nil when none came (or the exchange closed with none left).
    public func next(timeout: Duration = .seconds(5)) async -> [UInt8]? {
        let deadline = ContinuousClock.now + timeout
        while sent.isEmpty, exitCode == nil, ContinuousClock.now < deadline {
            await waitForWake(until: deadline)
        }
        return sent.isEmpty ? nil : sent.removeFirst()
    }

    /// Waits until the server closes the exchange, up to `timeout`; returns the exit code. What was
    /// sent meanwhile stays to be taken with ``next(timeout:)``.
    public func waitForClose(timeout: Duration = .seconds(5)) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while exitCode == nil, ContinuousClock.now < deadline {
            await waitForWake(until: deadline)
        }
        return exitCode
    }

    /// Suspends until something is sent, the exchange closes, or `deadline` passes.
    private func waitForWake(until deadline: ContinuousClock.Instant) async {
        let timer = Task { @MainActor [weak self] in
            try? await Task.sleep(until: deadline)
            self?.wake()
        }
        await withCheckedContinuation { waiter = $0 }
        timer.cancel()
    }

    private func wake() {
        let waiter = self.waiter
        self.waiter = nil
        waiter?.resume()
    }
}
