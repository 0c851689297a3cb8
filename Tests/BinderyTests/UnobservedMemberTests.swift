import Testing
@testable import Bindery
import BinderyTesting

/// Members Observation does not see — `@ObservationIgnored` ones, and every member of a class that
/// is not `@Observable` — still reach the client when a command or a write changes them.
@MainActor @Suite struct UnobservedMemberTests {
    @Observable final class Counter {
        @ObservationIgnored var hits = 0
        var name = ""
        func hit() { hits += 1 }
    }

    final class Plain {
        var name = ""
        var shout: String { name.uppercased() }
        private(set) var saves = 0
        func save() { saves += 1 }
    }

    @Test func anIgnoredMemberChangedByACommandIsSent() throws {
        let counter = try TestSession { _ in Counter() }
        try counter.invoke("hit") { $0["hits"] = 1 }
        try counter.invoke("hit") { $0["hits"] = 2 }
    }

    @Test func aClassThatIsNotObservableIsReadAgainAfterEachWriteAndCommand() throws {
        let plain = try TestSession { _ in Plain() }
        try plain.set("name", "ada") {
            $0["name"] = "ada"
            $0["shout"] = "ADA"
        }
        try plain.invoke("save") { $0["saves"] = 1 }
    }
}

extension UnobservedMemberTests.Counter: ViewModel {
    static var exposure: Exposure<UnobservedMemberTests.Counter> {
        Exposure {
            Field("name", \.name)
            Output("hits", \.hits)
            Command("hit") { $0.hit() }
        }
    }
}

extension UnobservedMemberTests.Plain: ViewModel {
    static var exposure: Exposure<UnobservedMemberTests.Plain> {
        Exposure {
            Field("name", \.name)
            Output("shout", \.shout)
            Output("saves", \.saves)
            Command("save") { $0.save() }
        }
    }
}
