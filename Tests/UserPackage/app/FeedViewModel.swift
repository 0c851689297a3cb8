import BinderyServer
import Foundation

/// A view model written from other threads, as apps write them: a plain thread, a dispatch queue and
/// a `nonisolated async` method each write a counter of their own, while the client reads and writes
/// the form. Each writer writes its next value only once the client has acknowledged the last one
/// (`ack`), so no two writes can merge into one change: a value the client is never told is a change
/// lost, and that writer waits for ever (the stress test says which).
@Observable
final class FeedViewModel: @unchecked Sendable {
    private(set) var threadCount = 0
    private(set) var queueCount = 0
    private(set) var taskCount = 0
    private(set) var isStarted = false
    var note = ""
    var total: Int { threadCount + queueCount + taskCount }
    /// A derived value that takes a while to compute, as a formatted summary can: the main thread
    /// spends longer reading the model, while the writers write.
    var digest: String {
        var hasher = Hasher()
        for round in 0..<200 { hasher.combine(note); hasher.combine(round) }
        return "\(total) (\(hasher.finalize() & 0xffff))"
    }

    @ObservationIgnored private let acknowledged = Acknowledgements()

    struct Ack: Codable {
        var writer: Int
        var value: Int
    }

    func start(count: Int) {
        isStarted = true  // a change on the main thread: the session reads the model again right after
        Thread {
            for value in 1...count {
                self.threadCount = value
                self.acknowledged.wait(writer: 0, for: value)
            }
        }.start()
        DispatchQueue.global().async {
            for value in 1...count {
                self.queueCount = value
                self.acknowledged.wait(writer: 1, for: value)
            }
        }
        Task.detached { await self.load(count: count) }
    }

    /// Written from the cooperative pool, between suspensions.
    nonisolated func load(count: Int) async {
        for value in 1...count {
            taskCount = value
            while acknowledged.value(of: 2) < value {
                try? await Task.sleep(for: .microseconds(200))
            }
        }
    }

    func ack(_ ack: Ack) { acknowledged.set(writer: ack.writer, to: ack.value) }
}

/// What the client has acknowledged, per writer; writers on threads wait on it.
final class Acknowledgements: @unchecked Sendable {
    private let condition = NSCondition()
    private var values = [0, 0, 0]

    func set(writer: Int, to value: Int) {
        condition.lock()
        values[writer] = max(values[writer], value)
        condition.broadcast()
        condition.unlock()
    }

    func value(of writer: Int) -> Int {
        condition.lock()
        defer { condition.unlock() }
        return values[writer]
    }

    func wait(writer: Int, for value: Int) {
        condition.lock()
        while values[writer] < value { condition.wait() }
        condition.unlock()
    }
}

extension FeedViewModel: ViewModel {
    static var exposure: Exposure<FeedViewModel> {
        Exposure {
            Output("threadCount", \.threadCount)
            Output("queueCount", \.queueCount)
            Output("taskCount", \.taskCount)
            Output("isStarted", \.isStarted)
            Output("total", \.total)
            Output("digest", \.digest)
            Field("note", \.note)
            Command("start") { (model, count: Int) in model.start(count: count) }
            Command("ack") { (model, ack: FeedViewModel.Ack) in model.ack(ack) }
        }
    }
}
