#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Bindery
import SeedViewModels
import BinderyTesting

/// A closed session leaves nothing behind: not in the table, not in its model, not in a store it
/// shared with other sessions (its Observation registration is cancelled at close).
@MainActor
@Suite(.serialized) struct SessionLifetimeTests {
    static let cycles = 20_000

    /// Sessions refer to their table unowned (a weak reference made every retain of it slow): a
    /// session kept after its table is gone, or after it was closed, must not reach for it.
    @Test func aSessionOutlivingItsTableOrItsCloseStillAnswers() async throws {
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        let type = try #require(registry.type(named: "email"))
        var table: SessionTable? = SessionTable(registry: registry, dependencies: .deterministic())
        let kept = try table!.open(type, arguments: [:], observing: nil)
        let closed = try table!.open(type, arguments: [:], observing: nil)
        table!.close(closed.id)
        weak let gone = table
        table = nil
        // A task the table scheduled (its deferred collection) holds it until it has run.
        for _ in 0..<100 where gone != nil { await Task.yield() }
        try #require(gone == nil)
        try kept.setField("email", to: "ada@example.com")
        #expect(kept.collectChanges()?["isValid"] == .bool(true))
        #expect(!kept.canUndo)  // no table, no clock: the write is not an undo step
        try closed.setField("email", to: "x")
        #expect(closed.collectChanges() == nil)
    }

    /// A session's tracking calls it back unowned: a session gone without a close (its table
    /// dropped) whose registration lives on in a store it read must not be called.
    @Test func aRegistrationOutlivingItsSessionDoesNotCallIt() async throws {
        // Freed memory filled with garbage (glibc's M_PERTURB), so that a call into the freed
        // session crashes rather than read what happened to be left there.
        let mallopt = unsafeBitCast(try #require(dlsym(nil, "mallopt")), to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(-6, 0xA4)  // even: a Bool read from freed memory is false, so the call goes on
        defer { _ = mallopt(-6, 0) }
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        let type = try #require(registry.type(named: "movieList"))
        var table: SessionTable? = SessionTable(registry: registry, dependencies: .deterministic())
        let store = table!.dependencies[MovieStoreKey.self]
        weak var session = try table!.open(type, arguments: [:], observing: nil)
        weak let gone = table
        table = nil
        for _ in 0..<100 where gone != nil || session != nil { await Task.yield() }
        try #require(gone == nil && session == nil)
        store.add(title: "Heat", rating: .good)  // the list's registration fires into its tracking
        await Task.yield()
        #expect(store.allMovies.count == 1)
    }

    @Test(arguments: ["email", "survey", "login", "package", "element", "movieList", "addMovie", "bottomBar"])
    func openingAndClosingManySessionsDoesNotGrowMemory(type name: String) async throws {
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        let table = SessionTable(registry: registry, dependencies: .deterministic())
        let type = try #require(registry.type(named: name))
        let arguments: JSONObject = name == "element" ? ["symbol": "He"] : [:]
        // A store every movie session registers with: it must not keep the closed ones.
        let store = table.dependencies[MovieStoreKey.self]
        func cycle(_ count: Int) async throws {
            for index in 0..<count {
                let session = try table.open(type, arguments: arguments, observing: nil)
                table.close(session.id)
                // Between requests a daemon lets the tasks a session started (bottomBar's timer)
                // run to their cancellation; so does this loop, now and then.
                if index % 100 == 99 { await Task.yield() }
            }
        }
        try await cycle(Self.cycles / 10)  // warm-up: allocator pools, table capacity
        let before = ResidentMemory.bytes
        try await cycle(Self.cycles)
        let growth = ResidentMemory.bytes - before
        // A leak of one registration per closed session (~850 bytes) would be 17 MB here. The
        // test command runs these measurements apart, one at a time (scripts/test): alone, the
        // growth measured 16 KB–280 KB; beside every other suite it reached 4.7 MB, theirs.
        #expect(growth < 4 << 20, "\(name): RSS grew by \(growth) bytes over \(Self.cycles) open/close cycles")
        #expect(table.count == 0)
        // And the store's next change reaches no closed session: nothing is dirty, nothing is sent.
        store.add(title: "After", rating: .good)
        #expect(table.collectChanges().isEmpty)
    }

    /// Sessions start without a beacon; a type whose closed session left its registration in an
    /// object that outlived the model (the shared store) is marked, and its next sessions take one.
    /// A type whose registrations die with the model is never marked (addMovie writes to the store
    /// but reads only its own fields). bottomBar is left out: whether its timer task has unwound when
    /// the check runs decides it, and a task still holding the model marks the type (the safe side).
    @Test(arguments: [("email", false), ("survey", false), ("movieList", true), ("addMovie", false)])
    func onlyTypesThatReachSharedObjectsNeedCancellableRegistrations(name: String, marked: Bool) async throws {
        var registry = ViewModelRegistry()
        registry.registerSeedViewModels()
        let table = SessionTable(registry: registry, dependencies: .deterministic())
        let type = try #require(registry.type(named: name))
        #expect(!table.needsCancellableTracking(type))
        let id = try table.open(type, arguments: [:], observing: nil).id
        table.close(id)
        for _ in 0..<10 { await Task.yield() }
        // A lasting registration is always cancellable: no type is ever marked.
        #expect(table.needsCancellableTracking(type) == (marked && !SessionTracking.usesLastingRegistration))
    }
}
