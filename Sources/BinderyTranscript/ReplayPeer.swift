/// The daemon's side of a replay: a server in this process (BinderyTesting) or a daemon process
/// over pipes (`bindery-replay`). The ``Replayer`` plays the client's side against it.
public protocol ReplayPeer {
    /// Sends one body, framed as the transcript's client framed it.
    func send(_ body: [UInt8]) async
    /// Ends the client's input (stdin closed).
    func endInput() async
    /// The next body the daemon writes; nil when the exchange has ended, or when nothing came
    /// within a guard against a hung daemon (not a time limit: a message that must come comes).
    func next() async -> [UInt8]?
    /// The next body the daemon writes before it falls quiet with nothing more to say until it is
    /// sent something (or its virtual clock is moved); nil once it is quiet. Record mode only.
    func nextBeforeQuiet() async -> [UInt8]?
    /// Waits for the daemon to end the exchange after ``endInput()``; its exit code, nil if it did not.
    func exitCode() async -> Int32?
    /// What the daemon said on the side (its stderr's tail), for a failure's message; empty if none.
    func sideNotes() async -> String
}

extension ReplayPeer {
    public func sideNotes() async -> String { "" }
}
