/// One client's end of a JSON-RPC exchange, as a server sees it: what the client sent comes in,
/// serialized message bodies go out.
///
/// The server never touches file descriptors or the process: it handles what ``start(_:)`` hands it
/// and sends bodies, and when it is done it calls ``close(exitCode:)`` — a process transport then
/// exits with that code, an in-memory one records it. Implementations: ``StdioConnection`` (the
/// daemon's stdin and stdout), ``InMemoryConnection`` (tests), and decorators such as a recorder.
///
/// Main actor only: the server that uses it runs there.
@MainActor
public protocol Connection: AnyObject {
    /// The framing the client uses, once known (recorders write it down).
    var framing: Framing? { get }
    /// Starts reading. `handler` is called on the main actor with what has arrived since its last
    /// call, in order, and last of all with ``Inbound/end``.
    func start(_ handler: @escaping @MainActor ([Inbound]) -> Void)
    /// Asks for every request's body with it: a connection may otherwise read a hot request where
    /// it lies and hand it over with an empty body (``Inbound/request(_:body:)``). A recorder asks,
    /// before ``start(_:)``.
    func keepBodies()
    /// Queues one message body for writing, in order. May write (and wait for the client to read)
    /// when much is queued: that is how a client that does not read slows the server down.
    func send(_ body: [UInt8])
    /// Queues the message body `write` writes: like ``send(_:)``, but a transport that frames into
    /// a buffer of its own may take the body straight from the writer, with no array made for it.
    func send(writing write: (inout JSONWriter.Output) -> Void)
    /// Writes everything queued.
    func flush()
    /// Ends the exchange: nothing more is sent after what is queued. A process exits with `exitCode`.
    func close(exitCode: Int32)
}

extension Connection {
    /// For connections that always keep bodies.
    public func keepBodies() {}

    public func send(writing write: (inout JSONWriter.Output) -> Void) {
        send(JSONWriter.bytes(write))
    }
}
