import Bindery
import Foundation

/// The example view models under the names a client opens them by.
public enum ExampleViewModels {
    static let catalog = [
        Product(sku: "tea", name: "Green tea", price: Decimal(string: "4.10")!),
        Product(sku: "cup", name: "Cup", price: Decimal(string: "0.10")!),
        Product(sku: "pot", name: "Teapot", price: Decimal(string: "0.20")!),
        Product(sku: "set", name: "Tea set", price: Decimal(string: "999.99")!),
    ]

    static let recipes = [
        Recipe(id: 1, name: "Pancakes", minutes: 20),
        Recipe(id: 2, name: "Soup", minutes: 45),
        Recipe(id: 3, name: "Salad", minutes: 10),
    ]

    @MainActor public static func register(into registry: inout ViewModelRegistry) {
        registry.register("todoList") { _ in TodoListViewModel() }
        registry.register("settings") { _ in SettingsViewModel() }
        registry.register("search") { context in
            SearchViewModel(service: FakeFilmService(clock: context.dependencies.clock), clock: context.dependencies.clock)
        }
        registry.register("order") { _ in OrderViewModel(catalog: catalog) }
        registry.register("favorites") { _ in FavoritesViewModel(recipes: recipes) }
        registry.register("stopwatch") { _ in StopwatchViewModel() }
        registry.register("import") { _ in ImportViewModel() }
        registry.register("valueCatalogue") { _ in ValueCatalogueViewModel() }
        registry.register("rareValues") { _ in RareValuesViewModel() }
        registry.register("tabbedApp") { context in TabbedAppViewModel(clock: context.dependencies.clock) }
        registry.register("quoteFeed") { context in QuoteFeedViewModel(feed: QuoteFeed(clock: context.dependencies.clock)) }
    }
}
