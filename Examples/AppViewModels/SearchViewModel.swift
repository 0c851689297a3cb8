import Foundation
import Observation

// A search screen with a debounce and a load-state enum whose cases carry payloads.

struct Film: Identifiable, Codable, Equatable {
    let id: Int
    let title: String
    let year: Int
}

enum LoadState: Equatable {
    case idle
    case loading
    case loaded([Film])
    case failed(String)
}

protocol FilmSearching {
    func films(matching query: String) async throws -> [Film]
}

@MainActor @Observable
class SearchViewModel {
    var query = "" {
        didSet { scheduleSearch() }
    }
    private(set) var state: LoadState = .idle
    private(set) var searchCount = 0

    private let service: FilmSearching
    private let clock: any Clock<Duration>
    private var pending: Task<Void, Never>?

    init(service: FilmSearching, clock: any Clock<Duration> = ContinuousClock()) {
        self.service = service
        self.clock = clock
    }

    var resultCount: Int {
        if case .loaded(let films) = state { return films.count }
        return 0
    }

    private func scheduleSearch() {
        pending?.cancel()
        let text = query.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else {
            state = .idle
            return
        }
        pending = Task {
            do {
                try await clock.sleep(for: .milliseconds(300))
            } catch {
                return
            }
            state = .loading
            searchCount += 1
            do {
                state = .loaded(try await service.films(matching: text))
            } catch {
                state = .failed(error.localizedDescription)
            }
        }
    }
}

/// A stand-in for the network: a few films, answered after a short delay; "error" fails.
struct FakeFilmService: FilmSearching {
    struct Offline: LocalizedError {
        var errorDescription: String? { "The film service is offline" }
    }

    let clock: any Clock<Duration>
    static let catalog = [
        Film(id: 1, title: "Metropolis", year: 1927),
        Film(id: 2, title: "Modern Times", year: 1936),
        Film(id: 3, title: "The Third Man", year: 1949),
        Film(id: 4, title: "Tokyo Story", year: 1953),
    ]

    func films(matching query: String) async throws -> [Film] {
        try await clock.sleep(for: .milliseconds(200))
        if query == "error" { throw Offline() }
        return Self.catalog.filter { $0.title.localizedCaseInsensitiveContains(query) }
    }
}
