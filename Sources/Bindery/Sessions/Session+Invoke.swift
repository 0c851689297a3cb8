extension Session {
    /// How a command invocation ended.
    public enum InvokeOutcome {
        /// The command returned; the JSON of its result, or nil when it returns nothing.
        case returned(JSONValue?)
        case failed(any Error)
        /// Cancelled by the client or by closing the session.
        case cancelled
        /// Never ran: the request was wrong (arguments of the wrong type).
        case rejected(SessionError)
    }

    /// Runs the command `name`, once its enabled condition allows.
    ///
    /// A sync command, or an async one that never suspends, calls `completion` before this returns.
    /// Otherwise the command keeps running on the main actor and `completion` is called when it
    /// ends; the returned task cancels it. While it runs, `<name>.running` reads true.
    public func invoke(
        _ name: String, arguments: JSONValue?,
        completion: @escaping @MainActor (InvokeOutcome) -> Void
    ) throws(SessionError) -> Task<Void, Never>? {
        // Arguments of a type that cannot be decoded are matched against the model's values; they
        // are read before the command's first suspension, so within this scope.
        // The daemon's dependencies, for the command's body and the tasks it starts (Dependencies.current).
        let started = Dependencies.$current.withValue(table?.dependencies) { () -> Result<Task<Void, Never>?, SessionError> in
            do throws(SessionError) {
                return .success(try type.matchingValues(of: model) { () throws(SessionError) in
                    try startInvoke(name, arguments: arguments, completion: completion)
                })
            } catch {
                return .failure(error)
            }
        }
        return try started.get()
    }

    private func startInvoke(
        _ name: String, arguments: JSONValue?,
        completion: @escaping @MainActor (InvokeOutcome) -> Void
    ) throws(SessionError) -> Task<Void, Never>? {
        guard let commandIndex = type.commandIndex(named: name) else {
            throw .unknownCommand(name, known: type.commandNames)
        }
        let command = type.commands[commandIndex]
        if command.argumentsType == nil, let arguments, arguments != .null, arguments != .object(JSONObject()) {
            throw .invalidArguments(command: name, ValueError(expected: "no args (absent, null or {})", found: arguments.typeName))
        }
        if let isEnabled = command.isEnabled, !isEnabled(model) { throw .commandDisabled(name) }
        let fieldsBefore = command.isUndoable ? fieldValuesByProperty() : nil
        switch command.body {
        case .sync(let body):
            do {
                let result = try body(model, arguments)
                commandRan(undoable: fieldsBefore)
                // Re-read after it: members Observation does not see (`@ObservationIgnored`, a
                // class that is not `@Observable`) reach the client when a command changes them.
                markDirty()
                completion(.returned(result))
            } catch let error as CommandArgumentsError {
                throw .invalidArguments(command: name, error.error)
            } catch {
                commandRan(undoable: fieldsBefore)
                completion(.failed(error))
            }
            return nil
        case .async(let body):
            let number = beginRunning(command: commandIndex)
            let model = self.model
            // `immediate`: the command's first steps run now, inside the request's turn, so their
            // changes go out with the request's first didChange. The task inherits the request's
            // ChangeCause, so every later step names it too. (No `withValue` here: its async form
            // would hop off the main actor and split that first turn.)
            let clock = table?.dependencies.clock as? VirtualClock
            let clockTask = clock?.beginTask()
            let task = VirtualClock.$taskNumber.withValue(clockTask) { Task.immediate { @MainActor in
                let outcome: InvokeOutcome
                do {
                    let result = try await body(model, arguments)
                    outcome = Task.isCancelled ? .cancelled : .returned(result)
                } catch let error as CommandArgumentsError {
                    // Arguments are decoded before the first suspension, so this is still the request's turn.
                    outcome = .rejected(.invalidArguments(command: name, error.error))
                } catch {
                    outcome = Task.isCancelled || error is CancellationError ? .cancelled : .failed(error)
                }
                self.endRunning(command: commandIndex, number: number)
                if case .rejected = outcome {} else { self.commandRan(undoable: fieldsBefore) }
                completion(outcome)
                if let clockTask { clock?.taskEnded(clockTask) }
            } }
            track(task: task, number: number)
            return task
        }
    }
}
