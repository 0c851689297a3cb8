import Bindery

/// Seed 004: the movie list. The seed assigned the store's publisher to its own `movies`; reading
/// through to the shared store is enough for Observation.
@MainActor @Observable
public final class MovieListViewModel {
    private let movieStore: MovieStore
    public var isPresentingAddMovie = false

    public init(movieStore: MovieStore) {
        self.movieStore = movieStore
    }

    public var movies: [Movie] { movieStore.allMovies }
}

extension MovieListViewModel: ViewModel {
    public static var exposure: Exposure<MovieListViewModel> {
        Exposure {
            Output("movies", \.movies)
            Field("isPresentingAddMovie", \.isPresentingAddMovie, label: "Adding a movie")
        }
    }
}
