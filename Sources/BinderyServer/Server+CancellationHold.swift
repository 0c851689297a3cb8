import Bindery

/// Holding input back while cancelled commands unwind, so that their answers come before anything
/// sent after the cancellation (`session/close`, `$/cancelRequest`), in a batch or not.
extension Server {
    /// Holds input back while cancelled commands unwind, until `haveAnswered` holds, so that they
    /// answer before anything sent after the cancellation is handled: the same order on every run.
    /// A command that ignores its cancellation is waited for two seconds at most.
    func waitForCancelledCommands(until haveAnswered: @escaping @MainActor () -> Bool) {
        if let hold = cancellationHold {
            hold.conditions.append(haveAnswered)
            return
        }
        let hold = CancellationHold(haveAnswered)
        cancellationHold = hold
        holdInput()
        // Cancelled on release: a watchdog left sleeping kept its hold, and through the hold's
        // conditions the closed session and its model, for two seconds after every close.
        hold.watchdog = Task { @MainActor [reference, weak hold] in
            try? await Task.sleep(for: .seconds(2))
            guard !Task.isCancelled, let hold else { return }
            reference?.server?.releaseCancellationHold(hold)
        }
    }

    /// Called whenever a command answers: releases input once every cancelled command has.
    func commandAnswered() {
        guard let hold = cancellationHold, hold.conditions.allSatisfy({ $0() }) else { return }
        releaseCancellationHold(hold)
    }

    func releaseCancellationHold(_ hold: CancellationHold) {
        guard cancellationHold === hold else { return }
        cancellationHold = nil
        hold.watchdog?.cancel()
        releaseInput()
    }
}
