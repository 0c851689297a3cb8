import Foundation
import Observation

// Favourites: a Set of ids, rows that are not Codable, and errors by field in a dictionary.

struct Recipe: Identifiable {
    let id: Int
    let name: String
    let minutes: Int
}

@Observable
class FavoritesViewModel {
    let recipes: [Recipe]
    var favoriteIDs: Set<Int> = []
    var showOnlyFavorites = false
    var note = ""
    private(set) var errors: [String: String] = [:]

    init(recipes: [Recipe]) {
        self.recipes = recipes
    }

    var shown: [Recipe] {
        showOnlyFavorites ? recipes.filter { favoriteIDs.contains($0.id) } : recipes
    }

    func toggleFavorite(_ recipe: Recipe) {
        if favoriteIDs.contains(recipe.id) {
            favoriteIDs.remove(recipe.id)
        } else {
            favoriteIDs.insert(recipe.id)
        }
    }

    func validate() {
        var found: [String: String] = [:]
        if note.count > 40 { found["note"] = "Keep the note under 40 characters" }
        if favoriteIDs.isEmpty { found["favoriteIDs"] = "Pick at least one favourite" }
        errors = found
    }
}
