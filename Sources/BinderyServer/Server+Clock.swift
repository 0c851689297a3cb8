import Bindery

extension Server {
    /// `clock/advance` {ms} -> {now}: under `--deterministic`, moves the virtual clock and runs every
    /// timer and sleep that falls due, in order, before answering. Messages that arrive meanwhile
    /// wait, so the requests after it see the world after the advance.
    func advanceClock(_ params: Params, id: RequestID?, inBatch: Bool) throws(RPCError) -> Reply {
        guard let clock = dependencies.clock as? VirtualClock else {
            throw .needsDeterministicMode("clock/advance")
        }
        let milliseconds = try params.int("ms")
        guard milliseconds >= 0 else { throw .invalidParams("param \"ms\" must not be negative", param: "ms") }
        guard !inBatch else { throw .invalidRequest("clock/advance cannot be part of a batch") }
        pauseInput()
        Task { @MainActor in
            await clock.advance(by: milliseconds)
            sendChanges()
            send(OutgoingMessage.response(id: id, result: ["now": .int(clock.now)]))
            resumeInput()
        }
        return .later
    }
}
