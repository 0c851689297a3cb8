import Bindery

/// How an exchange ends: the client's input ends, it sends `exit`, or the daemon gets a signal.
/// Running commands answer (or are cancelled and answer -32800) before the connection is closed.
extension Server {
    /// The client's input ended: answer what was read, let running commands answer (on the virtual
    /// clock nobody is left to move time, so they are cancelled), then close with code 0.
    func endOfInput() {
        holdInput()
        exitReason = exitReason ?? "the client's input ended"
        if dependencies.isDeterministic { cancelRunningCommands() }
        closeWhenIdle()
    }

    /// `exit`: running commands are cancelled and answer -32800; then the exchange closes, with code
    /// 0 after `shutdown` and 1 without.
    func exitNotification() {
        holdInput()
        exitCode = isShutDown ? 0 : 1
        exitReason = "the client sent exit"
        cancelRunningCommands()
        closeWhenIdle()
    }

    /// SIGTERM or SIGINT: input stops; running commands may answer for ``terminationGrace``, then
    /// what is left is cancelled; the exchange closes with code 0 within two seconds in all. (The
    /// daemon also ends the process at two seconds from another thread, for when writing is stuck.)
    public func terminate(signal name: String) {
        StandardStreams.log("\(serverInfo.name): info: \(name): exiting once running commands answer")
        holdInput()
        exitCode = 0
        exitReason = "the daemon received \(name)"
        closeWhenIdle()
        Task { @MainActor in
            try? await Task.sleep(for: Self.terminationGrace)
            cancelRunningCommands()
            try? await Task.sleep(for: .milliseconds(150))
            close()
        }
    }

    /// How long commands still running at SIGTERM may take to answer before they are cancelled.
    static let terminationGrace = Duration.milliseconds(1650)

    func cancelRunningCommands() {
        for task in inFlight.values { task.cancel() }
    }

    /// Closes the exchange once no command is running, if it is ending.
    func closeWhenIdle() {
        if exitReason != nil, inFlightCount == 0 { close() }
    }

    func close() {
        guard !isClosed else { return }
        sendChanges()
        store?.flush()
        connection.flush()
        isClosed = true
        hub.clientEnded(self)
        connection.close(exitCode: exitCode)
    }

    /// The client is gone before its exchange ended (a socket client hung up, or stopped reading
    /// past its backlog): nothing more can be sent to it. Its running commands are cancelled —
    /// their changes still reach the session's other clients — and it is detached from every
    /// session (see ``SessionHub/clientEnded(_:)``).
    public func connectionLost() {
        guard !isClosed else { return }
        holdInput()
        exitReason = "the client disconnected"
        isClosed = true
        cancelRunningCommands()
        hub.clientEnded(self)
    }
}
