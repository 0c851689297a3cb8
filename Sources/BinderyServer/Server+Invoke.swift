import Bindery

extension Server {
    /// `invoke` {session, command, args?} -> {result}. A sync command answers in its turn; an async
    /// one answers when it ends, and can be cancelled with `$/cancelRequest` meanwhile.
    func invoke(_ params: Params, id: RequestID?) throws(RPCError) -> Reply {
        let session = try session(params)
        let command = try params.string("command")
        let arguments = params.object["args"]
        let limit = options.limits.inFlight
        guard inFlightCount < limit else {
            throw .limitReached("\(limit) commands are running", flag: "--max-in-flight", value: limit)
        }
        let call = PendingCall()
        let task: Task<Void, Never>?
        do {
            task = try session.invoke(command, arguments: arguments) { [unowned self] outcome in
                if call.isPending {
                    finishInvoke(id: id, session: session, command: command, outcome)
                } else {
                    call.immediateOutcome = outcome
                }
            }
        } catch {
            throw .session(session, error)
        }
        if let outcome = call.immediateOutcome { return reply(session, command, outcome) }
        call.isPending = true
        inFlightCount += 1
        if let id, let task { inFlight[id] = task }
        return .later
    }

    /// Answers an async invoke that ended after its turn: its last changes, then its response.
    private func finishInvoke(id: RequestID?, session: Session, command: String, _ outcome: Session.InvokeOutcome) {
        if let id { inFlight[id] = nil }
        inFlightCount -= 1
        sendChanges()
        switch reply(session, command, outcome) {
        case .result(let result): send(OutgoingMessage.response(id: id, result: result))
        case .error(let error): send(OutgoingMessage.response(id: id, error: error))
        case .later: break
        }
        flushOutput()
        if exitReason != nil, inFlightCount == 0 { terminate(code: 0) }
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
        waitForCancelledCommands { [unowned self] in inFlight[id] == nil }
    }

    /// Holds input back while cancelled commands unwind, until `haveAnswered`, so that they answer
    /// before anything sent after the cancellation is handled: the same order on every run.
    func waitForCancelledCommands(until haveAnswered: @escaping @MainActor () -> Bool) {
        pauseInput()
        Task { @MainActor in
            await settleMainActor(until: haveAnswered, maximumRounds: 10_000)
            resumeInput()
        }
    }
}

/// Whether an invoke's handler has returned yet: decides how its completion is delivered.
@MainActor
private final class PendingCall {
    var isPending = false
    var immediateOutcome: Session.InvokeOutcome?
}
