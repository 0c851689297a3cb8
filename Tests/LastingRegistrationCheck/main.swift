// The lasting Observation registration's reads, checked where they run: linked like binderyd
// (the Swift runtime inside), so that sessions take Observation's SPI and read into the access
// list of their last read (SessionTracking.trackLasting). The unit tests cannot: a debug test
// bundle links the runtime dynamically, and sessions there fall back to the public API.
//
// Run by scripts/test: `swift build --product lasting-registration-check` and run it; it prints
// what failed and exits 1, or exits 0.
#if canImport(Glibc)
import Glibc
#endif
import Bindery

@MainActor enum Failures {
    static var count = 0
}

@MainActor func check(_ condition: Bool, _ what: String, line: Int = #line) {
    guard !condition else { return }
    Failures.count += 1
    print("lasting-registration-check:\(line): failed: \(what)")
}

/// An output that reads `detail` only while `showsDetail`: what a session's reads touch changes.
@MainActor @Observable final class Summary {
    var name = "Ada"
    var showsDetail = false
    var detail = "mathematician"
    var text: String { showsDetail ? "\(name), \(detail)" : name }
}

extension Summary: ViewModel {
    static var exposure: Exposure<Summary> {
        Exposure {
            Field("name", \.name)
            Field("showsDetail", \.showsDetail)
            Output("text", \.text)
        }
    }
}

/// Rows, each an observable object of its own: a new row is a registrar no read has touched.
@MainActor @Observable final class Row {
    var count = 0
}

@MainActor @Observable final class Tally {
    var rows: [Row] = []
    var total: Int { rows.reduce(0) { $0 + $1.count } }
}

extension Tally: ViewModel {
    static var exposure: Exposure<Tally> {
        Exposure {
            Output("total", \.total)
        }
    }
}

@MainActor func changes(_ table: SessionTable) -> JSONObject? {
    let found = table.collectChanges()
    return found.isEmpty ? nil : found[0].changes
}

@MainActor func run() throws {
    check(ChangeTracking.mechanism.hasPrefix("observation: lasting registration"),
          "sessions here use the lasting registration, not: \(ChangeTracking.mechanism)")

    // What a read reaches anew is registered, across many changes: more than the 64 reads after
    // which a session takes a fresh list.
    var registry = ViewModelRegistry()
    let summary = Summary()
    registry.register("summary") { _ in summary }
    let tally = Tally()
    registry.register("tally") { _ in tally }
    let table = SessionTable(registry: registry)
    let session = try table.open(registry.type(named: "summary")!, arguments: [:], observing: nil)
    for round in 0..<100 {
        summary.detail = "d\(round)"  // not read while showsDetail is false: nothing to tell
        check(changes(table) == nil, "round \(round): a change to what no member reads was sent")
        _ = try session.setField("showsDetail", to: true)
        check(changes(table) == ["text": .string("Ada, d\(round)")], "round \(round): detail shown")
        summary.detail = "e\(round)"  // read now: it must be told
        check(changes(table) == ["text": .string("Ada, e\(round)")], "round \(round): a change to detail, newly read")
        _ = try session.setField("showsDetail", to: false)
        check(changes(table) == ["text": "Ada"], "round \(round): detail hidden")
        summary.name = "Grace \(round)"
        check(changes(table) == ["name": .string("Grace \(round)"), "text": .string("Grace \(round)")], "round \(round): a name")
        summary.name = "Ada"
        _ = changes(table)
    }

    // Rows added and removed: a change to a new row is told, one to a removed row is not.
    _ = try table.open(registry.type(named: "tally")!, arguments: [:], observing: nil)
    var removed: [Row] = []
    for round in 1...150 {
        let row = Row()
        tally.rows.append(row)
        _ = changes(table)
        row.count = round
        check(changes(table) == ["total": .int(tally.total)], "round \(round): a change to a new row")
        if round % 3 == 0 {
            removed.append(tally.rows.removeFirst())
            _ = changes(table)
            removed.last!.count += 1000
            check(changes(table) == nil, "round \(round): a change to a removed row was sent")
        }
    }
    check(tally.total == tally.rows.reduce(0) { $0 + $1.count }, "the total")
}

MainActor.assumeIsolated {
    do {
        try run()
    } catch {
        Failures.count += 1
        print("lasting-registration-check: failed: \(error)")
    }
    if Failures.count > 0 { exit(1) }
    print("lasting-registration-check: passed")
}
