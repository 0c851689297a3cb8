import Foundation
import Observation

// A live price, as a finance screen has one: a stream of quotes subscribed to when the screen
// opens, and a refresh that fetches one now in a task of its own.

/// Quotes a fake exchange publishes, one per second of its clock.
struct QuoteFeed {
    let clock: any Clock<Duration>

    func quotes(startingAt price: Int) -> AsyncStream<Int> {
        AsyncStream { continuation in
            let task = Task { @MainActor in
                var price = price
                while !Task.isCancelled {
                    do { try await clock.sleep(for: .seconds(1)) } catch { break }
                    price += 1
                    continuation.yield(price)
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func latest() async -> Int { 100 }
}

@MainActor @Observable
class QuoteFeedViewModel {
    private(set) var price = 100
    private(set) var updates = 0
    private(set) var refreshes = 0
    private let feed: QuoteFeed
    private var subscription: Task<Void, Never>?

    init(feed: QuoteFeed) {
        self.feed = feed
        subscription = Task { [weak self] in
            for await quote in feed.quotes(startingAt: 100) {
                guard let self else { return }
                price = quote
                updates += 1
            }
        }
    }

    /// Fetches the latest price in a task of its own and waits for it.
    func refresh() async {
        let fetch = Task {
            let latest = await feed.latest()
            price = latest
            refreshes += 1
        }
        await fetch.value
    }

    isolated deinit { subscription?.cancel() }
}
