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
        let now = clock.now.milliseconds
        guard milliseconds <= Int.max - now else {
            throw .invalidParams("param \"ms\": the virtual clock cannot move past \(Int.max) ms; it is at \(now) ms, "
                                 + "so ms may be at most \(Int.max - now)", param: "ms")
        }
        guard !inBatch else { throw .invalidRequest("clock/advance cannot be part of a batch") }
        holdInput()
        // Shared: advances from several clients run one after another, in the order they were read
        // (the clock runs one advance at a time).
        let previous = hub.lastClockAdvance
        let advance = Task { @MainActor in
            await previous?.value
            // Tasks the view models started by themselves (a debounce) first reach their sleeps,
            // so that the clock moves on from where they began (see SerialJobs).
            await SerialJobs.settle()
            await clock.advance(by: .milliseconds(milliseconds))
            await SerialJobs.settle()
            sendChanges()
            send(OutgoingMessage.response(id: id, result: ["now": .int(clock.now.milliseconds)]))
            flush()
            releaseInput()
        }
        hub.lastClockAdvance = advance
        return .later
    }
}
