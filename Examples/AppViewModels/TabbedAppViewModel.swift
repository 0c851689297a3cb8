import Foundation
import Observation

// An app model composed of child view models, as apps compose them: a tab per child (one with a
// timer task of its own, started and stopped by its commands), a list of counter rows that can be
// added, removed and each incremented, and a detail that comes and goes with the selection.

@Observable
class CounterRowViewModel {
    let id: Int
    var title: String
    private(set) var count = 0

    init(id: Int, title: String) {
        self.id = id
        self.title = title
    }

    var summary: String { "\(title): \(count)" }

    func increment() { count += 1 }
    func reset() { count = 0 }
}

@Observable
class ClockTabViewModel {
    private(set) var ticks = 0
    private(set) var isRunning = false
    private var task: Task<Void, Never>?
    private let clock: any Clock<Duration>

    init(clock: any Clock<Duration> = ContinuousClock()) {
        self.clock = clock
    }

    func start() {
        guard task == nil else { return }
        isRunning = true
        task = Task { @MainActor [weak self, clock] in
            while !Task.isCancelled {
                do { try await clock.sleep(for: .seconds(1)) } catch { break }
                self?.ticks += 1
            }
        }
    }

    func stop() {
        task?.cancel()
        task = nil
        isRunning = false
    }

    deinit { task?.cancel() }
}

@Observable
class ProfileTabViewModel {
    var name = ""
    var canSave: Bool { !name.isEmpty }
}

@Observable
class CountersTabViewModel {
    private(set) var rows: [CounterRowViewModel] = []
    var newTitle = ""
    private var nextID = 1
    var total: Int { rows.reduce(0) { $0 + $1.count } }

    func add() {
        let title = newTitle.isEmpty ? "Counter \(nextID)" : newTitle
        rows.append(CounterRowViewModel(id: nextID, title: title))
        nextID += 1
        newTitle = ""
    }

    func remove(id: Int) {
        rows.removeAll { $0.id == id }
    }

    func moveToTop(id: Int) {
        guard let index = rows.firstIndex(where: { $0.id == id }) else { return }
        rows.insert(rows.remove(at: index), at: 0)
    }
}

@Observable
class TabbedAppViewModel {
    enum Tab: String, CaseIterable { case clock, profile, counters }

    var selectedTab: Tab = .counters
    let clockTab: ClockTabViewModel
    let profileTab = ProfileTabViewModel()
    let countersTab = CountersTabViewModel()
    private(set) var detail: CounterRowViewModel?

    init(clock: any Clock<Duration> = ContinuousClock()) {
        clockTab = ClockTabViewModel(clock: clock)
    }

    func showDetail(id: Int) {
        detail = countersTab.rows.first { $0.id == id }
    }

    func hideDetail() { detail = nil }
}
