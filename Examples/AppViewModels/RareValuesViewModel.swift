import Foundation
import Observation

// The value forms apps use less often than the catalogue's, each with a fixed value: an OptionSet,
// a custom Codable form, a Measurement, a generic enum's payload, a dictionary with enum keys and
// a Codable class. Their schemas are checked against what is sent (clients/python/tests/test_wire_schemas.py).

/// Text styles, as an editor keeps them: an OptionSet, shown as its raw value.
struct TextStyle: OptionSet {
    let rawValue: Int
    static let bold = TextStyle(rawValue: 1)
    static let italic = TextStyle(rawValue: 2)
}

/// A result generic over what was fetched.
enum Fetch<Value> {
    case loaded(Value)
    case failed(String)
}

/// The owner of a list, as a Codable class.
final class Owner: Codable {
    var name: String
    init(name: String) { self.name = name }
}

@Observable
class RareValuesViewModel {
    var style: TextStyle = [.bold]
    var span = NSRange(location: 0, length: 3)
    var distance = Measurement(value: 5, unit: UnitLength.kilometers)
    private(set) var fetch: Fetch<[Tag]> = .loaded([Tag(name: "home", colour: "green")])
    private(set) var counts: [Priority: Int] = [.low: 1, .high: 3]
    private(set) var owner = Owner(name: "Ada")

    func fail() { fetch = .failed("offline") }
}
