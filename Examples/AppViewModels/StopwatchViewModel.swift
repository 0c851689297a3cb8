import Foundation
import Observation

// A time tracker's stopwatch driven by Foundation's Timer on the main run loop, as apps do.

@Observable
class StopwatchViewModel {
    private(set) var ticks = 0
    private(set) var isRunning = false
    private var timer: Timer?

    var display: String { String(format: "%d.%d s", ticks / 10, ticks % 10) }

    func start() {
        guard !isRunning else { return }
        isRunning = true
        timer = Timer.scheduledTimer(withTimeInterval: 0.1, repeats: true) { [weak self] _ in
            self?.ticks += 1
        }
    }

    func stop() {
        timer?.invalidate()
        timer = nil
        isRunning = false
    }

    func reset() {
        stop()
        ticks = 0
    }
}
