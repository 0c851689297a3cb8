import Testing
@testable import Bindery

/// A model whose output reads `detail` only while `showsDetail`: the set of key paths a session's
/// reads touch changes with a value.
@MainActor @Observable
final class Summary {
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

/// Sessions hold one lasting registration (Observation's SPI) where the toolchain has it, and keep
/// it while their reads touch the same things (see LastingRegistration and SessionTracking).
@MainActor
@Suite struct LastingRegistrationTests {
    /// Fails loudly when the toolchain no longer offers what the lasting registration relies on
    /// (the SPI, the thread-local access list's entry points, `_AccessList`'s layout): sessions
    /// would silently fall back to the public one-shot API, and every change would cost a new
    /// registration again (about 13,000 instructions and most of a session's memory: BENCHMARKS.md).
    @Test func theToolchainOffersTheLastingRegistration() {
        #if BINDERY_PUBLIC_OBSERVATION_ONLY
        #expect(!SessionTracking.usesLastingRegistration)
        #else
        // Where the access list's entry points are linked (a static runtime: binderyd, release
        // tests built with -static-stdlib), what the registration relies on must hold.
        #expect(LastingRegistration.isAvailable == LastingRegistration.isLinked, "Observation's lasting registration SPI or _AccessList changed: sessions fall back to withObservationTracking(_:onChange:)")
        #expect(SessionTracking.usesLastingRegistration == LastingRegistration.isAvailable)
        #endif
    }

    /// A registration kept across changes must still be replaced when the reads reach something new:
    /// `detail` is read only once `showsDetail` is true, and a change to it must then be pushed.
    @Test func aReadThatReachesSomethingNewIsRegisteredAgain() throws {
        var registry = ViewModelRegistry()
        let model = Summary()
        registry.register("summary") { _ in model }
        let table = SessionTable(registry: registry)
        let session = try table.open(registry.type(named: "summary")!, arguments: [:], observing: nil)
        model.detail = "analyst"  // not read yet: nothing to tell
        #expect(table.collectChanges().isEmpty)
        try session.setField("showsDetail", to: true)
        #expect(table.collectChanges().first?.changes == ["text": "Ada, analyst"])
        model.detail = "programmer"
        #expect(table.collectChanges().first?.changes == ["text": "Ada, programmer"])
        model.name = "Grace"
        model.name = "Ada"
        #expect(table.collectChanges().isEmpty)
        try session.setField("showsDetail", to: false)
        #expect(table.collectChanges().first?.changes == ["text": "Ada"])
        model.name = "Grace"
        #expect(table.collectChanges().first?.changes == ["name": "Grace", "text": "Grace"])
    }

    /// Many changes to the same field, each collected: every one is seen (the registration stays)
    /// and a closed session hears nothing more.
    @Test func aKeptRegistrationSeesEveryChangeUntilTheSessionCloses() throws {
        var registry = ViewModelRegistry()
        let model = Summary()
        registry.register("summary") { _ in model }
        let table = SessionTable(registry: registry)
        let session = try table.open(registry.type(named: "summary")!, arguments: [:], observing: nil)
        for index in 0..<50 {
            model.name = "name \(index)"
            #expect(table.collectChanges().first?.changes == ["name": .string("name \(index)"), "text": .string("name \(index)")])
        }
        table.close(session.id)
        model.name = "after"
        #expect(table.collectChanges().isEmpty)
    }
}
