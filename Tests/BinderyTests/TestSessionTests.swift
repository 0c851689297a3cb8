import Testing
import Bindery
import BinderyTesting
import SeedViewModels

/// The harness itself: what it fails on, and how it says so. Failures are captured here instead of
/// failing this test, then checked.
@MainActor
@Suite struct TestSessionTests {
    final class Failures {
        var messages: [String] = []
    }

    func emailForm(_ failures: Failures) throws -> TestSession<EmailViewModel> {
        try TestSession(reportFailure: { message, _ in failures.messages.append(message) }) { _ in EmailViewModel() }
    }

    @Test func anUnassertedChangeFailsWithADiff() throws {
        let failures = Failures()
        let form = try emailForm(failures)
        try form.set("email", "ada@example.com") {
            $0["email"] = "ada@example.com"
            $0["isValid"] = true  // validationMessage changed too, and is not asserted
        }
        #expect(failures.messages.count == 1)
        let message = try #require(failures.messages.first)
        #expect(message.contains("set email: the state differs"))
        #expect(message.contains(#"− validationMessage: "Email is invalid""#))
        #expect(message.contains(#"+ validationMessage: "Email is valid""#))
        #expect(message.contains(#"pushed: {"isValid":true,"validationMessage":"Email is valid"}"#))
    }

    @Test func anAssertedChangeThatDidNotHappenFails() throws {
        let failures = Failures()
        let form = try emailForm(failures)
        try form.set("email", "ada@example") {
            $0["email"] = "ada@example"
            $0["isValid"] = true
        }
        #expect(failures.messages.count == 1)
        #expect(failures.messages.first?.contains("+ isValid: false") == true)
    }

    @Test func aCompleteAssertionPasses() throws {
        let failures = Failures()
        let form = try emailForm(failures)
        try form.set("email", "ada@example.com") {
            $0["email"] = "ada@example.com"
            $0["isValid"] = true
            $0["validationMessage"] = "Email is valid"
        }
        #expect(failures.messages.isEmpty)
        #expect(form.changeSets == [["isValid": true, "validationMessage": "Email is valid"]])
    }

    @Test func changesBetweenStepsMustBeReceived() throws {
        let failures = Failures()
        let dependencies = Dependencies.deterministic()
        let list = try TestSession(dependencies: dependencies, reportFailure: { message, _ in failures.messages.append(message) }) {
            MovieListViewModel(movieStore: $0.dependencies[MovieStoreKey.self])
        }
        dependencies[MovieStoreKey.self].add(title: "Alien", rating: .good)
        list.finish()
        #expect(failures.messages.count == 1)
        #expect(failures.messages.first?.contains("not asserted (use receive)") == true)
    }

    @Test func aSessionThatGoesAwayWithUnassertedChangesFails() throws {
        let failures = Failures()
        let dependencies = Dependencies.deterministic()
        do {
            let list = try TestSession(dependencies: dependencies, reportFailure: { message, _ in failures.messages.append(message) }) {
                MovieListViewModel(movieStore: $0.dependencies[MovieStoreKey.self])
            }
            dependencies[MovieStoreKey.self].add(title: "Alien", rating: .good)
            withExtendedLifetime(list) {}
        }
        #expect(failures.messages.count == 1)
        #expect(failures.messages.first?.contains("before the end of the test and not asserted") == true)
    }
}
