import Foundation
import Testing
@testable import AppViewModels
import Bindery
import BinderyTesting

/// The search: a 300 ms debounce and a load state whose cases carry payloads, on the virtual clock.
@MainActor @Suite struct SearchTests {
    func open() throws -> TestSession<SearchViewModel> {
        try TestSession { context in
            SearchViewModel(service: FakeFilmService(clock: context.dependencies.clock), clock: context.dependencies.clock)
        }
    }

    @Test func typingSearchesOnceAfterTheDebounceAndShowsTheLoadedState() async throws {
        let search = try open()
        #expect(search.state["state"] == ["case": "idle"])
        try search.set("query", "t") { $0["query"] = "t" }
        try search.set("query", "ti") { $0["query"] = "ti" }
        await search.advance(by: .milliseconds(299))
        await search.advance(by: .milliseconds(1)) {
            $0["state"] = ["case": "loading"]
            $0["searchCount"] = 1
        }
        await search.advance(by: .milliseconds(200)) {
            $0["state"] = ["case": "loaded", "_0": [["id": 2, "title": "Modern Times", "year": 1936]]]
            $0["resultCount"] = 1
        }
    }

    @Test func aFailureShowsItsMessage() async throws {
        let search = try open()
        try search.set("query", "error") { $0["query"] = "error" }
        await search.advance(by: .milliseconds(300)) {
            $0["state"] = ["case": "loading"]
            $0["searchCount"] = 1
        }
        await search.advance(by: .milliseconds(200)) {
            $0["state"] = ["case": "failed", "_0": "The film service is offline"]
        }
    }
}
