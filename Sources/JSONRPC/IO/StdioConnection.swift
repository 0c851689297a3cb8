#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The connection of a daemon to the client that spawned it: messages read from one file descriptor
/// (stdin), framed answers written to another (a private copy of stdout).
///
/// On Linux the main thread reads, frames, parses and handles, in ``MainLoop``; elsewhere a
/// ``MessageReader`` thread reads and parses, and the main actor handles. Answers are written in
/// the framing the client's first byte showed. The first write that fails (the client closed its
/// end) ends the process through `onClose` with code 0: nobody is left to answer. Backpressure: the
/// writer blocks while the client does not read, which stops the main thread, which stops reading:
/// memory stays bounded whatever the client does.
@MainActor
public final class StdioConnection: Connection {
    private let input: Int32
    private let limits: MessageReader.Limits
    private let writer: MessageWriter
    private let onClose: @MainActor (Int32) -> Void
    private var decoder: FrameDecoder
    private var keepsBodies = false
    /// Only where ``MainLoop`` is not available.
    private var threadReader: MessageReader?

    /// - Parameters:
    ///   - input: where the client's messages are read from.
    ///   - output: where answers are written.
    ///   - limits: the message size and nesting depth the reader enforces.
    ///   - onClose: ends the exchange with an exit code; a daemon exits the process there.
    public init(input: Int32, output: Int32, limits: MessageReader.Limits = .init(),
                onClose: @escaping @MainActor (Int32) -> Void) {
        self.input = input
        self.limits = limits
        writer = MessageWriter(fileDescriptor: output)
        self.onClose = onClose
        decoder = FrameDecoder(maximumMessageSize: limits.messageSize)
    }

    public var framing: Framing? { threadReader?.framing ?? decoder.framing }

    /// Reads on the main thread through ``MainLoop`` (the process must then run `MainLoop.run()`),
    /// or on a thread of its own where that loop is not available (then `dispatchMain()`).
    public func start(_ handler: @escaping @MainActor ([Inbound]) -> Void) {
        if MainLoop.isAvailable {
            MainLoop.watch(input) { [self] in readAvailable(handler) }
            return
        }
        let reader = MessageReader(fileDescriptor: input, limits: limits)
        threadReader = reader
        // A main-actor task, not a bare main-queue block: `Task.immediate` (async commands) runs
        // synchronously only when it can see that it is already on the main actor.
        reader.start {
            Task { @MainActor in handler(reader.takeAll()) }
        }
    }

    /// Reads what the client has sent (up to 64 KiB) and hands over the messages it completes;
    /// false once the input has ended.
    private func readAvailable(_ handler: @MainActor ([Inbound]) -> Void) -> Bool {
        let count = Self.chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
        if count < 0, errno == EINTR || errno == EAGAIN { return true }
        var items: [Inbound] = []
        guard count > 0 else {
            if let last = decoder.finish() { items.append(Inbound(last, maximumDepth: limits.depth)) }
            items.append(.end)
            handler(items)
            return false
        }
        Self.chunk.withUnsafeBytes { decoder.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        while let item = decoder.nextInbound(maximumDepth: limits.depth, keepingBody: keepsBodies) { items.append(item) }
        if !items.isEmpty { handler(items) }
        return true
    }

    public func keepBodies() {
        keepsBodies = true  // the thread reader (where MainLoop is not available) keeps them anyway
    }

    private static var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    public func send(_ body: [UInt8]) {
        writer.enqueue(body, framing: framing ?? .contentLength)
        checkWriter()
    }

    /// The body framed into the output buffer straight from the writer's (stack) memory.
    public func send(writing write: (inout JSONWriter.Output) -> Void) {
        let framing = framing ?? .contentLength
        JSONWriter.withBytes(write) { writer.enqueue($0, framing: framing) }
        checkWriter()
    }

    public func flush() {
        writer.flush()
        checkWriter()
    }

    public func close(exitCode: Int32) {
        writer.flush()
        onClose(exitCode)
    }

    private func checkWriter() {
        guard writer.failure != nil else { return }
        StandardStreams.log("bindery: info: the client closed the daemon's output; exiting")
        onClose(0)
    }
}
