import Bindery

extension ViewModelRegistry {
    /// Registers the view models of the seed articles under the names clients open them with.
    public mutating func registerSeedViewModels() {
        register("email") { _ in EmailViewModel() }
        register("survey") { _ in SurveyViewModel() }
        register("login") { context in LoginViewModel(api: context.dependencies[UserAPIKey.self]) }
        register("package") { context in
            PackageViewModel(package: .makeExample(), random: context.dependencies.random)
        }
        register("element") { context in try ElementViewModel(symbol: context.argumentIfPresent("symbol")) }
        register("movieList") { context in MovieListViewModel(movieStore: context.dependencies[MovieStoreKey.self]) }
        register("addMovie") { context in AddMovieViewModel(movieStore: context.dependencies[MovieStoreKey.self]) }
        register("bottomBar") { context in
            let model = BottomBarViewModel(clock: context.dependencies.clock, random: context.dependencies.random)
            context.task { await model.runTimer() }
            return model
        }
    }
}
