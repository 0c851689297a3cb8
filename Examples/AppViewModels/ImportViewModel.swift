import Foundation
import Observation

// A background import, written the way a Swift 5 module does it: the class is not isolated to the
// main actor, and the work writes its progress from a detached task on other threads.

@Observable
class ImportViewModel {
    private(set) var imported = 0
    private(set) var lastLine = ""
    var total = 1000

    var progress: Double { total == 0 ? 1 : Double(imported) / Double(total) }

    func importAll() async {
        let total = self.total
        await Task.detached(priority: .utility) {
            for line in 1...max(total, 1) {
                self.imported = line
                self.lastLine = "line \(line)"
            }
        }.value
    }

    func importInParallel(workers: Int) async {
        let total = self.total
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    for _ in stride(from: worker, to: total, by: workers) {
                        self.bump()
                    }
                }
            }
        }
    }

    /// Starts the import and returns at once; the lines arrive from another thread, as a callback
    /// API's would.
    func importInBackground() {
        let total = self.total
        Task.detached(priority: .utility) {
            for line in 1...max(total, 1) {
                self.imported = line
            }
        }
    }

    private let lock = NSLock()

    private func bump() {
        lock.lock()
        imported += 1
        lock.unlock()
    }
}
