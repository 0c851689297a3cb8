/// One replay at a time in a test process: a deterministic replay routes the process's global jobs
/// to the main actor (SerialJobs), and two replays interleaved there would each see the other's
/// tasks between their steps. Tests that replay run in parallel otherwise; they queue here, in order.
@MainActor
enum ReplayTurns {
    private static var isBusy = false
    private static var waiting: [CheckedContinuation<Void, Never>] = []

    static func take<Result>(_ body: () async throws -> Result) async rethrows -> Result {
        if isBusy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            isBusy = true
        }
        // Handed to the next in line (still busy), or freed.
        defer { if waiting.isEmpty { isBusy = false } else { waiting.removeFirst().resume() } }
        return try await body()
    }
}
