import Foundation
import Testing
@testable import AppViewModels
import Bindery
import BinderyTesting

@MainActor @Suite struct OrderTests {
    @Test func decimalPricesAreExact() async throws {
        let order = try TestSession { _ in OrderViewModel(catalog: ExampleViewModels.catalog) }
        let cup: JSONValue = ["sku": "cup", "name": "Cup", "price": "0.1"]
        let pot: JSONValue = ["sku": "pot", "name": "Teapot", "price": "0.2"]
        try order.invoke("add", args: cup) {
            $0["lines"] = [["product": cup, "quantity": 1]]
            $0["subtotal"] = "0.1"; $0["total"] = "0.1"
        }
        try order.invoke("add", args: pot) {
            $0["lines"] = [["product": cup, "quantity": 1], ["product": pot, "quantity": 1]]
            $0["subtotal"] = "0.3"; $0["total"] = "0.3"  // not 0.30000000000000004
        }
        try order.set("couponCode", "save10") {
            $0["couponCode"] = "save10"
            $0["discount"] = "0.03"; $0["total"] = "0.27"
        }
        // A line is not Codable: the client names it by the line it was shown.
        try order.invoke("remove", args: ["product": cup, "quantity": 1]) {
            $0["lines"] = [["product": pot, "quantity": 1]]
            $0["subtotal"] = "0.2"; $0["discount"] = "0.02"; $0["total"] = "0.18"
        }
    }

    @Test func anErrorIsShownAsItsMessage() async throws {
        let order = try TestSession { _ in OrderViewModel(catalog: ExampleViewModels.catalog) }
        let call = try order.invoke("placeOrder") { $0["error"] = "Add something to the order first" }
        #expect(call.isFinished)
    }
}

@MainActor @Suite struct FavoritesTests {
    @Test func aSetOfIDsAndADictionaryOfErrors() throws {
        let favorites = try TestSession { _ in FavoritesViewModel(recipes: ExampleViewModels.recipes) }
        try favorites.invoke("toggleFavorite", args: ["id": 2, "name": "Soup", "minutes": 45]) { $0["favoriteIDs"] = [2] }
        try favorites.set("favoriteIDs", JSONValue.array([3, 1, 3])) { $0["favoriteIDs"] = [1, 3] }
        try favorites.set("showOnlyFavorites", true) {
            $0["showOnlyFavorites"] = true
            $0["shown"] = [["id": 1, "name": "Pancakes", "minutes": 20], ["id": 3, "name": "Salad", "minutes": 10]]
        }
        try favorites.set("favoriteIDs", JSONValue.array([])) {
            $0["favoriteIDs"] = []
            $0["shown"] = []
        }
        try favorites.invoke("validate") { $0["errors"] = ["favoriteIDs": "Pick at least one favourite"] }
    }
}
