/// The connection of a daemon to the client that spawned it: messages read from one file descriptor
/// (stdin) on a reader thread, framed answers written to another (a private copy of stdout).
///
/// Answers are written in the framing the client's first byte showed. The first write that fails
/// (the client closed its end) ends the process through `onClose` with code 0: nobody is left to
/// answer. Backpressure: the writer blocks while the client does not read, which stops the main
/// actor, which stops taking input, which makes the reader thread stop reading (see
/// ``MessageReader``): memory stays bounded whatever the client does.
@MainActor
public final class StdioConnection: Connection {
    private let reader: MessageReader
    private let writer: MessageWriter
    private let onClose: @MainActor (Int32) -> Void

    /// - Parameters:
    ///   - input: where the client's messages are read from.
    ///   - output: where answers are written.
    ///   - limits: the message size, nesting depth and read-ahead the reader enforces.
    ///   - onClose: ends the exchange with an exit code; a daemon exits the process there.
    public init(input: Int32, output: Int32, limits: MessageReader.Limits = .init(),
                onClose: @escaping @MainActor (Int32) -> Void) {
        reader = MessageReader(fileDescriptor: input, limits: limits)
        writer = MessageWriter(fileDescriptor: output)
        self.onClose = onClose
    }

    public var framing: Framing? { reader.framing }

    public func start(_ handler: @escaping @MainActor ([Inbound]) -> Void) {
        let reader = self.reader
        // A main-actor task, not a bare main-queue block: `Task.immediate` (async commands) runs
        // synchronously only when it can see that it is already on the main actor.
        reader.start {
            Task { @MainActor in handler(reader.takeAll()) }
        }
    }

    public func send(_ body: [UInt8]) {
        writer.enqueue(body, framing: reader.framing ?? .contentLength)
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
