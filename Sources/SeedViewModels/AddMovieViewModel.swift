import Bindery

/// Seed 004: the add-movie form. It edits a private new movie and saves it to the shared store.
@MainActor @Observable
public final class AddMovieViewModel {
    private let movieStore: MovieStore
    public var title = ""
    public var rating = Movie.Rating.notSeen

    public init(movieStore: MovieStore) {
        self.movieStore = movieStore
    }

    public var canSave: Bool { !title.isEmpty }

    public func save() -> Movie {
        movieStore.add(title: title, rating: rating)
    }
}

extension AddMovieViewModel: ViewModel {
    public static var exposure: Exposure<AddMovieViewModel> {
        Exposure {
            Field("title", \.title)
            Field("rating", \.rating)
            Output("canSave", \.canSave)
            Command("save", enabled: \.canSave) { $0.save() }
        }
    }
}
