/// A dependency a view model can be given: declared once, with the value a live daemon uses and the
/// one a deterministic daemon (`--deterministic`, and tests) uses.
///
/// ```swift
/// enum UserAPIKey: DependencyKey {
///     static func liveValue(_ dependencies: Dependencies) -> UserAPI { UserAPI(clock: dependencies.clock) }
/// }
/// registry.register("login") { context in LoginViewModel(api: context.dependencies[UserAPIKey.self]) }
/// ```
/// The value is made the first time a daemon asks for it and then shared by every session, so a key
/// is also how view model types share a store. A test can put its own value in place first
/// (`dependencies[UserAPIKey.self] = FakeUserAPI()`), without touching Bindery.
public protocol DependencyKey {
    associatedtype Value
    /// The value of a daemon serving real clients; it may use the other dependencies.
    @MainActor static func liveValue(_ dependencies: Dependencies) -> Value
    /// The value of a deterministic daemon: repeatable from run to run. Defaults to ``liveValue(_:)``,
    /// which is right for anything that uses only the other dependencies (the clock, the random source).
    @MainActor static func deterministicValue(_ dependencies: Dependencies) -> Value
}

extension DependencyKey {
    @MainActor public static func deterministicValue(_ dependencies: Dependencies) -> Value {
        liveValue(dependencies)
    }
}
