import Testing
@testable import Bindery

/// A view model made for these tests: a stored field, a computed output that depends on it, and an
/// output that depends on nothing the field touches.
@MainActor @Observable
final class Thermostat {
    var celsius = 20.0
    var label = "Kitchen"
    @ObservationIgnored var computedReads = 0
    var fahrenheit: Double {
        computedReads += 1
        return celsius * 9 / 5 + 32
    }
    var isWarm: Bool { celsius >= 25 }
    /// Stores its input rounded: the "model stored something else" case of echo suppression.
    var setpoint = 0
}

extension Thermostat: ViewModel {
    static var exposure: Exposure<Thermostat> {
        Exposure {
            Field("celsius", \.celsius)
            Field("label", \.label)
            Output("fahrenheit", \.fahrenheit)
            Output("isWarm", \.isWarm)
            Field("setpoint", \.roundedSetpoint)
            Command("warmUp", enabled: \.canWarmUp) { $0.celsius += 10 }
        }
    }
    var canWarmUp: Bool { celsius < 40 }
    var roundedSetpoint: Int {
        get { setpoint }
        set { setpoint = (newValue / 5) * 5 }
    }
}

@MainActor
@Suite struct ChangeTrackingTests {
    let table: SessionTable
    let session: Session
    let model: Thermostat

    init() throws {
        var registry = ViewModelRegistry()
        let model = Thermostat()
        registry.register("thermostat") { _ in model }
        table = SessionTable(registry: registry)
        session = try table.open(registry.type(named: "thermostat")!, arguments: [:], observing: nil)
        self.model = model
    }

    func changes() -> JSONObject? {
        let all = table.collectChanges()
        #expect(all.count <= 1)
        return all.first?.changes
    }

    @Test func openStateHoldsEveryMemberIncludingCommandState() {
        #expect(session.state().keys == ["celsius", "label", "fahrenheit", "isWarm", "setpoint",
                                         "warmUp.enabled", "warmUp.running"])
        #expect(session.revision == 0)
    }

    @Test func aComputedOutputIsPushedWhenItsInputChanges() throws {
        try session.setField("celsius", to: 30)
        #expect(changes() == ["fahrenheit": 86.0, "isWarm": true])
        #expect(session.revision == 1)
    }

    /// The cost model of one registration per session: any change re-reads every observed member
    /// once (however many writes the turn made), and sends only what differs.
    @Test func anyChangeReReadsEachObservedMemberOnceAndSendsOnlyDifferences() throws {
        let readsBefore = model.computedReads
        try session.setField("label", to: "Hall")
        try session.setField("label", to: "Hall 2")
        #expect(changes() == nil)
        #expect(model.computedReads == readsBefore + 1)
        #expect(session.revision == 0)
    }

    @Test func nothingIsReReadWhenNothingChanged() throws {
        let readsBefore = model.computedReads
        #expect(changes() == nil)
        _ = session.state()
        #expect(model.computedReads == readsBefore + 1)  // state() reads; collecting did not
    }

    @Test func settingAValueToWhatItIsSendsNothing() throws {
        try session.setField("celsius", to: 20)
        #expect(changes() == nil)
        model.label = "Kitchen"
        #expect(changes() == nil)
        #expect(session.revision == 0)
    }

    @Test func theWrittenFieldIsNotEchoedButAStoredDifferenceIs() throws {
        try session.setField("setpoint", to: 23)
        #expect(changes() == ["setpoint": 20])
        try session.setField("setpoint", to: 25)
        #expect(changes() == nil)
    }

    @Test func changesMadeByTheModelItselfArePushed() {
        model.celsius = 40
        #expect(changes() == ["celsius": 40.0, "fahrenheit": 104.0, "isWarm": true, "warmUp.enabled": false])
    }

    @Test func manyWritesInOneTurnMakeOneRevision() throws {
        try session.setField("celsius", to: 30)
        try session.setField("celsius", to: 10)
        try session.setField("celsius", to: 30)
        #expect(changes() == ["fahrenheit": 86.0, "isWarm": true])
        #expect(session.revision == 1)
    }

    @Test func unobservedMembersAreNotPushed() throws {
        _ = session.observe(["isWarm"])
        try session.setField("celsius", to: 26)
        #expect(changes() == ["isWarm": true])
        #expect(session.state() == ["isWarm": true])
    }

    @Test func aSyncCommandRunsAndItsEffectsArePushed() throws {
        var outcome: Session.InvokeOutcome?
        _ = try session.invoke("warmUp", arguments: nil) { outcome = $0 }
        guard case .returned(nil) = outcome else { Issue.record("unexpected \(String(describing: outcome))"); return }
        #expect(changes() == ["celsius": 30.0, "fahrenheit": 86.0, "isWarm": true])
    }

    @Test func aDisabledCommandIsRefused() throws {
        model.celsius = 45
        #expect(throws: SessionError.commandDisabled("warmUp")) {
            _ = try session.invoke("warmUp", arguments: nil) { _ in }
        }
    }

    @Test func sessionErrorsNameTheOffendingField() {
        #expect(throws: SessionError.readOnlyField("isWarm")) { try session.setField("isWarm", to: true) }
        #expect(throws: SessionError.readOnlyField("warmUp.enabled")) { try session.setField("warmUp.enabled", to: true) }
        #expect(throws: SessionError.wrongValueType(field: "celsius", ValueError(expected: "number", found: "string"))) {
            try session.setField("celsius", to: "hot")
        }
        guard case .unknownField("kelvin", _)? = catchError({ () throws(SessionError) in try session.setField("kelvin", to: 1) }) else {
            Issue.record("expected unknownField")
            return
        }
    }

    @Test func aClosedSessionIgnoresLaterChanges() {
        table.close(session.id)
        model.celsius = 35
        #expect(table.collectChanges().isEmpty)
    }

    private func catchError(_ body: () throws(SessionError) -> Void) -> SessionError? {
        do { try body() } catch { return error }
        return nil
    }
}

@MainActor
@Suite struct SharedModelTests {
    @MainActor @Observable final class Store { var items: [String] = [] }
    @MainActor @Observable final class ListViewModel {
        let store: Store
        init(store: Store) { self.store = store }
        var count: Int { store.items.count }
    }

    @Test func aChangeInASharedStoreReachesEverySession() throws {
        let store = Store()
        var registry = ViewModelRegistry()
        registry.register("list") { _ in ListViewModel(store: store) }
        let table = SessionTable(registry: registry)
        let type = registry.type(named: "list")!
        let first = try table.open(type, arguments: [:], observing: nil)
        let second = try table.open(type, arguments: [:], observing: nil)
        store.items.append("Alien")
        let changes = table.collectChanges()
        #expect(changes.map(\.session.id) == [first.id, second.id])
        #expect(changes.map(\.changes) == [["count": 1], ["count": 1]])
    }
}

extension SharedModelTests.ListViewModel: ViewModel {
    static var exposure: Exposure<SharedModelTests.ListViewModel> {
        Exposure { Output("count", \.count) }
    }
}
