import Bindery

/// Seed 004, MVVM in SwiftUI: a movie and its rating.
public struct Movie: Codable, Equatable, Sendable {
    public let id: String
    public var fullTitle: String
    public var givenRating: Rating

    public init(id: String, fullTitle: String, givenRating: Rating = .notSeen) {
        self.id = id
        self.fullTitle = fullTitle
        self.givenRating = givenRating
    }

    public enum Rating: String, CaseIterable, Codable, Sendable {
        case notSeen, terrible, poor, decent, good, excellent
    }
}

/// The store both movie view models share: one per daemon, so a movie saved in one session
/// reaches every movie list.
@MainActor @Observable
public final class MovieStore {
    public private(set) var allMovies: [Movie] = []
    private let ids: IDSource

    public init(ids: IDSource) {
        self.ids = ids
    }

    /// Adds a movie with a fresh id; returns it as stored.
    @discardableResult
    public func add(title: String, rating: Movie.Rating) -> Movie {
        let movie = Movie(id: ids.next(), fullTitle: title, givenRating: rating)
        allMovies.append(movie)
        return movie
    }
}

/// The daemon's one movie store, shared by every movieList and addMovie session.
public enum MovieStoreKey: DependencyKey {
    public static func liveValue(_ dependencies: Dependencies) -> MovieStore { MovieStore(ids: dependencies.ids) }
}
