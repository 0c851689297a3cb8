import Bindery

extension ViewModelRegistry {
    /// Registers the view models of the seed articles under the names clients open them with.
    public mutating func registerSeedViewModels() {
        register("email") { _ in EmailViewModel() }
        register("survey") { _ in SurveyViewModel() }
    }
}
