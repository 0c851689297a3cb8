import Foundation
import Observation

// A shop order: prices are Decimal (0.10 + 0.20 is 0.30), lines are plain structs, placing the
// order is async and can fail with an Error shown to the user.

struct Product: Hashable, Codable {
    let sku: String
    let name: String
    let price: Decimal
}

struct OrderLine: Identifiable {
    var id: String { product.sku }
    let product: Product
    var quantity: Int
    var total: Decimal { product.price * Decimal(quantity) }
}

enum OrderError: LocalizedError {
    case empty
    case declined(reason: String)

    var errorDescription: String? {
        switch self {
        case .empty: return "Add something to the order first"
        case .declined(let reason): return "The payment was declined: \(reason)"
        }
    }
}

@MainActor @Observable
class OrderViewModel {
    let catalog: [Product]
    var lines: [OrderLine] = []
    var couponCode = ""
    private(set) var placedOrderID: UUID?
    private(set) var error: Error?
    private(set) var isPlacing = false

    init(catalog: [Product]) {
        self.catalog = catalog
    }

    var subtotal: Decimal { lines.reduce(0) { $0 + $1.total } }
    var discount: Decimal { couponCode.uppercased() == "SAVE10" ? subtotal / 10 : 0 }
    var total: Decimal { subtotal - discount }

    func add(_ product: Product) {
        if let index = lines.firstIndex(where: { $0.product == product }) {
            lines[index].quantity += 1
        } else {
            lines.append(OrderLine(product: product, quantity: 1))
        }
    }

    func remove(_ line: OrderLine) {
        lines.removeAll { $0.id == line.id }
    }

    func placeOrder() async {
        error = nil
        guard !lines.isEmpty else {
            error = OrderError.empty
            return
        }
        isPlacing = true
        defer { isPlacing = false }
        await Task.yield()
        if total > 1000 {
            error = OrderError.declined(reason: "over the card's limit")
            return
        }
        placedOrderID = UUID()
        lines = []
    }
}
