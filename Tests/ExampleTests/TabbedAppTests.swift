import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import AppViewModels
@testable import Bindery
import BinderyTesting

/// Child view models (issue 24): tabs and rows served as sessions of their own.
@MainActor @Suite struct TabbedAppTests {
    func open() throws -> TestSession<TabbedAppViewModel> {
        try TestSession { context in TabbedAppViewModel(clock: context.dependencies.clock) }
    }

    @Test func theTreeArrivesWithTheParentAndEachRowKeepsItsSession() throws {
        let app = try open()
        #expect(app.state["countersTab"] == ["session": 4])
        #expect(app.children.keys.sorted() == [2, 3, 4])
        try app.invoke("add", inChild: 4)
        try app.invoke("add", inChild: 4)
        #expect(app.children[4]?["rows"] == [["session": 5], ["session": 6]])
        try app.invoke("increment", inChild: 6)
        #expect(app.children[6]?["count"] == 1 && app.children[5]?["count"] == 0)
        #expect(app.children[4]?["total"] == 1)
        // Reordered: the rows keep their sessions, so the next increment still reaches "Counter 2".
        try app.invoke("moveToTop", inChild: 4, args: 2)
        #expect(app.children[4]?["rows"] == [["session": 6], ["session": 5]])
        try app.invoke("increment", inChild: 6)
        #expect(app.children[6]?["summary"] == "Counter 2: 2")
        // Removed: its session is closed, and a command sent to it is refused, never run elsewhere.
        try app.invoke("remove", inChild: 4, args: 2)
        #expect(app.children[6] == nil && app.children[4]?["rows"] == [["session": 5]])
        #expect(throws: (any Error).self) { try app.invoke("increment", inChild: 6) }
        #expect(app.model.countersTab.rows.map(\.count) == [0])
    }

    @Test func aDetailComesAndGoes() throws {
        let app = try open()
        try app.invoke("add", inChild: 4)
        try app.invoke("showDetail", args: 1) { $0["detail"] = ["session": 6] }
        #expect(app.children[6]?["summary"] == "Counter 1: 0")
        try app.invoke("hideDetail") { $0["detail"] = .null }
        #expect(app.children[6] == nil)
    }

    @Test func closingTheParentReleasesEveryChildAndItsTask() async throws {
        let dependencies = Dependencies.deterministic()
        weak var app: TabbedAppViewModel?
        weak var clockTab: ClockTabViewModel?
        weak var row: CounterRowViewModel?
        var registry = ViewModelRegistry()
        registry.register("tabbedApp") { context in
            let model = TabbedAppViewModel(clock: context.dependencies.clock)
            app = model
            clockTab = model.clockTab
            return model
        }
        let table = SessionTable(registry: registry, dependencies: dependencies)
        let id = try table.open(registry.type(named: "tabbedApp")!, arguments: [:], observing: nil).id
        _ = try table.session(2)!.invoke("start", arguments: nil) { _ in }
        _ = try table.session(4)!.invoke("add", arguments: nil) { _ in }
        _ = table.collectChangeSets()
        row = app?.countersTab.rows.first
        #expect(table.count == 5)  // the app, three tabs, one row
        let clock = dependencies.clock as! VirtualClock
        for _ in 0..<100 where clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.sleeperCount == 1)  // the clock tab's task, asleep until its next tick
        table.close(id)
        #expect(table.count == 0)
        for _ in 0..<200 where clock.sleeperCount > 0 { await Task.yield() }
        #expect(clock.sleeperCount == 0, "the clock tab's task ended with its model")
        #expect(app == nil && clockTab == nil && row == nil)
    }

    @Test func aSnapshotKeepsTheTree() throws {
        var registry = ViewModelRegistry()
        ExampleViewModels.register(into: &registry)
        let table = SessionTable(registry: registry, dependencies: .deterministic())
        let type = registry.type(named: "tabbedApp")!
        let first = try table.open(type, arguments: [:], observing: nil)
        _ = try table.session(4)!.invoke("add", arguments: nil) { _ in }
        _ = table.collectChangeSets()
        try table.session(3)!.setField("name", to: "Ada")
        try table.session(5)!.setField("title", to: "Cups")
        let fields = first.fieldValues()
        #expect(fields["profileTab"] == ["name": "Ada"])
        #expect(fields["countersTab"] == ["newTitle": "", "rows": [["title": "Cups"]]])
        let restored = try table.open(type, arguments: [:], observing: nil, restoring: fields)
        let children = restored.takeChildrenNews().opened
        let profile = children.members.first { $0.value["type"] == "ProfileTabViewModel" }
        #expect(profile?.value["state"]?["name"] == "Ada")
    }

    /// As the seeds' sessions are checked (SessionLifetimeTests): thousands of trees opened, given
    /// rows and a running tab timer, and closed, leave the table empty and memory where it was.
    @Test func manyTreesOpenedAndClosedLeaveNothingBehind() async throws {
        var registry = ViewModelRegistry()
        ExampleViewModels.register(into: &registry)
        let dependencies = Dependencies.deterministic()
        let table = SessionTable(registry: registry, dependencies: dependencies)
        let type = registry.type(named: "tabbedApp")!
        func cycle(_ count: Int) async throws {
            for index in 0..<count {
                let app = try table.open(type, arguments: [:], observing: nil)
                _ = app.takeChildrenNews()
                let counters = app.id + 3, clock = app.id + 1
                _ = try table.session(clock)!.invoke("start", arguments: nil) { _ in }
                for _ in 0..<3 { _ = try table.session(counters)!.invoke("add", arguments: nil) { _ in } }
                _ = table.collectChangeSets()
                table.close(app.id)
                if index % 100 == 99 { await Task.yield() }
            }
        }
        try await cycle(500)  // warm-up: allocator pools, table capacity
        let before = ResidentMemory.bytes
        try await cycle(5_000)
        for _ in 0..<100 { await Task.yield() }
        let growth = ResidentMemory.bytes - before
        #expect(table.count == 0)
        #expect((dependencies.clock as! VirtualClock).sleeperCount == 0, "every tab timer ended with its tree")
        // A tree left behind (app, 3 tabs, 3 rows, a task) would be several KB a cycle: 20+ MB here.
        #expect(growth < 4 << 20, "RSS grew by \(growth) bytes over 5,000 trees")
    }
}
