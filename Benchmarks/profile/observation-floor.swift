// What Observation itself costs a session, without Bindery: the floor under the per-session memory
// and per-change time figures of bindery-bench. Build and run (release):
//
//     swiftc -O Benchmarks/profile/observation-floor.swift -o /tmp/observation-floor && /tmp/observation-floor
//
// For 100,000 email-like models (one stored property, two computed ones that read it) it prints the
// resident bytes per model (and its small tracker object) with no registration, with one registration reading all three members
// (what every Bindery session holds), and with one that also reads a per-session beacon (what a
// cancellable registration holds); then the time of one change cycle (write, fire, read the three
// members under a new registration) without and with the beacon.
import Observation
#if canImport(Glibc)
import Glibc
#endif

@Observable final class Email {
    var email = ""
    var isValid: Bool { email.contains("@") }
    var message: String { isValid ? "Email is valid" : "Email is invalid" }
}

@Observable final class Beacon { var generation = 0 }

final class Tracker: @unchecked Sendable {
    let model = Email()
    let beacon: Beacon?
    var fired = false
    init(beacon: Bool) { self.beacon = beacon ? Beacon() : nil }
    func track() {
        withObservationTracking {
            if let beacon { _ = beacon.generation }
            _ = model.email; _ = model.isValid; _ = model.message
        } onChange: { [weak self] in self?.fired = true }
    }
}

func residentBytes() -> Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var resident = 0, size = 0
    _ = withUnsafeMutablePointer(to: &size) { s in withUnsafeMutablePointer(to: &resident) { r in
        withVaList([s, r]) { vfscanf(file, "%ld %ld", $0) } } }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

let count = 100_000
var kept: [[Tracker]] = []  // each mode's trackers stay alive, so the next mode's memory is new
for (label, registered, beacon) in [("model only", false, false), ("one registration", true, false),
                                    ("one registration + beacon", true, true)] {
    var trackers: [Tracker] = []
    trackers.reserveCapacity(count)
    let before = residentBytes()
    for _ in 0..<count {
        let tracker = Tracker(beacon: beacon)
        if registered { tracker.track() }
        trackers.append(tracker)
    }
    print("\(label): \((residentBytes() - before) / count) bytes per model")
    kept.append(trackers)
}
for beacon in [false, true] {
    let tracker = Tracker(beacon: beacon)
    tracker.track()
    let cycles = 200_000
    let start = now()
    for cycle in 0..<cycles {
        tracker.model.email = cycle % 2 == 0 ? "a@b.co" : "x"
        tracker.track()
    }
    print("change cycle \(beacon ? "with" : "without") beacon: \(Int((now() - start) / Double(cycles))) ns")
}
