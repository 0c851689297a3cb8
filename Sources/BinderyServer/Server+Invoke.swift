import Bindery

extension Server {
    /// `invoke` {session, command, args?} -> {result}. A sync command answers in its turn; an async
    /// one answers when it ends, and can be cancelled with `$/cancelRequest` meanwhile.
    func invoke(_ params: Params, id: RequestID?, batch: BatchReply?) throws(RPCError) -> Reply {
        let session = try session(params)
        let command = try params.string("command")
        let (arguments, text) = try commandArguments(params, session, command: command)
        try checkExpectedRevision(params, session, command: command)
        let limit = options.limits.inFlight
        guard inFlightCount < limit else {
            throw .limitReached("\(limit) commands are running", flag: "--max-in-flight", value: limit)
        }
        let call = PendingCall()
        // Answered later: the request's scope stays open until then (its changes keep their cause).
        let scope = ChangeCause.scope
        let task: Task<Void, Never>?
        do {
            // Weak: a client that disconnected is gone while its cancelled commands unwind.
            task = try session.invoke(command, arguments: arguments) { [reference] outcome in
                guard let server = reference?.server else { return }
                if call.isPending {
                    server.finishInvoke(id: id, session: session, command: command, outcome, batch: batch, slot: call.slot)
                    scope?.close()
                } else {
                    call.immediateOutcome = outcome
                }
            }
        } catch {
            if let text, let refused = Self.refusedText(text, error, in: session) { throw refused }
            throw .session(session, error)
        }
        if let outcome = call.immediateOutcome {
            if let text, case .rejected(let error) = outcome, let refused = Self.refusedText(text, error, in: session) {
                return .error(refused)
            }
            return reply(session, command, outcome)
        }
        call.isPending = true
        call.slot = batch?.reserveSlot()
        inFlightCount += 1
        if let id, let task { inFlight[id] = task }
        return .later
    }

    /// Answers an async invoke that ended after its turn: its last changes, then its response.
    fileprivate func finishInvoke(id: RequestID?, session: Session, command: String, _ outcome: Session.InvokeOutcome,
                              batch: BatchReply?, slot: Int?) {
        if let id { inFlight[id] = nil }
        inFlightCount -= 1
        sendChanges()
        answer(id, reply(session, command, outcome), in: batch, slot: slot)
        flush()
        commandAnswered()
        closeWhenIdle()
    }

    private func reply(_ session: Session, _ command: String, _ outcome: Session.InvokeOutcome) -> Reply {
        switch outcome {
        case .returned(let result): .result(["result": result ?? .null])
        case .failed(let error): .error(.commandFailed(session, command: command, error))
        case .cancelled:
            .error(.cancelled(session.isClosed ? "session \(session.id) was closed"
                              : exitReason ?? "by the client"))
        case .rejected(let error): .error(.session(session, error))
        }
    }

    /// `$/cancelRequest` {id}: cancels a running invoke. Unknown or finished ids are ignored, as LSP says.
    func cancelRequest(_ params: JSONValue?) {
        guard let idValue = params?["id"], let id = RequestID(json: idValue), let task = inFlight[id] else { return }
        task.cancel()
        waitForCancelledCommands { [reference] in reference?.server?.inFlight[id] == nil }
    }
}

/// Whether an invoke's handler has returned yet: decides how its completion is delivered.
@MainActor
private final class PendingCall {
    var isPending = false
    var immediateOutcome: Session.InvokeOutcome?
    /// Its place in the answer of the batch it came in, if it did.
    var slot: Int?
}
