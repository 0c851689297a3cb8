import Foundation
import Observation

// One member of every kind of value Bindery shows, with fixed values: protocol.md's "Value types"
// and the transcript tests/Transcripts/value-forms.jsonl pin their wire forms with it.

struct Address: Equatable {  // not Codable
    var street: String
    var city: String
    var floor: Int?
}

struct Tag: Hashable, Codable {
    var name: String
    var colour: String
}

enum Priority: Int {
    case low = 1
    case normal
    case high
}

enum Shape: Equatable, Decodable {
    case point
    case circle(radius: Double)
    case rectangle(Double, Double)
}

struct CatalogueError: LocalizedError {
    var errorDescription: String? { "Something went wrong" }
}

@Observable
class ValueCatalogueViewModel {
    var date = Date(timeIntervalSince1970: 1_764_064_800.25)  // 2025-11-25T10:00:00.250Z
    var id = UUID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!
    var link = URL(string: "https://example.com/a?b=c")!
    var price = Decimal(string: "0.1")! + Decimal(string: "0.2")!
    var bytes = Data([0, 1, 2, 250])
    var selection = IndexSet([1, 2, 5])
    var tags: Set<String> = ["b", "a"]
    var scores: [String: Int] = ["b": 2, "a": 1]
    var priority: Priority = .normal
    var shape: Shape = .circle(radius: 1.5)
    var address = Address(street: "1 Main St", city: "Springfield", floor: nil)
    var labels: Set<Tag> = [Tag(name: "home", colour: "green")]
    var context: [Int: [String]] = [2: ["x"], 1: []]
    var bigCount: Int64 = 9_000_000_000
    var ratio: Float32 = 0.5
    var window: ClosedRange<Int> = 1...1_000_000
    var timeout: Duration = .milliseconds(1500)
    private(set) var lastError: Error? = CatalogueError()
    var pair: (width: Int, height: Int) { (3, 4) }

    func reset() {
        price = 0
        shape = .point
    }
}
