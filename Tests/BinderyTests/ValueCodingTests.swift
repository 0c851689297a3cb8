import Testing
@testable import Bindery

enum Rating: String, CaseIterable { case notSeen, terrible, good }

struct User: Codable, Equatable {
    var firstName: String
    var authToken: String?
}

/// A struct with one member of each kind the schema probe must find, itself among them.
struct Shelf: Codable {
    enum Grade: String, Codable, CaseIterable { case notSeen, terrible, good }
    var label = ""
    var count: Int32 = 0
    var ratings: [Grade] = []
    var owner: User?
    var size: Float = 0
    var next: [Shelf]?
}

@Suite struct ValueCodingTests {
    @Test func scalarsRoundTrip() throws {
        #expect(try String(jsonValue: "héllo") == "héllo")
        #expect(try Bool(jsonValue: true) == true)
        #expect(try Int(jsonValue: -42) == -42)
        #expect(try Double(jsonValue: 0.1) == 0.1)
        #expect(try Float(jsonValue: 45.1) == Float(45.1))
        #expect(3.jsonValue == .int(3))
        #expect(3.0.jsonValue == .double(3))
    }

    @Test func numbersConvertOnlyWhereNothingIsLost() throws {
        #expect(try Int(jsonValue: 3.0) == 3)
        #expect(try Double(jsonValue: 3) == 3.0)
        #expect(throws: ValueError.self) { try Int(jsonValue: 3.5) }
        #expect(throws: ValueError.self) { try Int(jsonValue: 1e19) }
        #expect(throws: ValueError.self) { try Float(jsonValue: 1e300) }
        #expect(throws: ValueError.self) { try Int(jsonValue: "3") }
        #expect(throws: ValueError.self) { try String(jsonValue: 3) }
    }

    @Test func floatsAreWrittenAsTheirShortestDecimal() {
        #expect(Float(45.1).jsonValue == .double(45.1))
        #expect(Double.nan.jsonValue == .null)
        #expect(Float.infinity.jsonValue == .null)
    }

    @Test func optionalsAcceptNull() throws {
        #expect(try String?(jsonValue: .null) == nil)
        #expect(try String?(jsonValue: "x") == "x")
        #expect(String?.none.jsonValue == .null)
        let error = #expect(throws: ValueError.self) { try Int?(jsonValue: "x") }
        #expect(error?.description == "expected integer or null, found string")
    }

    @Test func arraysNameTheBadElement() throws {
        #expect(try [Int](jsonValue: [1, 2]) == [1, 2])
        let error = #expect(throws: ValueError.self) { try [Int](jsonValue: [1, "two"]) }
        #expect(error?.description == "expected integer, found string (at index 1)")
    }

    @MainActor @Test func enumsUseRawValuesAndListTheirCases() throws {
        #expect(try decoded("good", as: Rating.self) == .good)
        #expect(coded(Rating.terrible) == "terrible")
        #expect(valueType(of: Rating.self) == .enumeration(["notSeen", "terrible", "good"]))
        let error = #expect(throws: ValueError.self) { try decoded("great", as: Rating.self) }
        #expect(error?.description == "expected one of \"notSeen\", \"terrible\", \"good\", found \"great\"")
    }

    @MainActor @Test func codableStructsTravelAsObjects() throws {
        let user = User(firstName: "Ada", authToken: nil)
        #expect(coded(user) == ["firstName": "Ada"])
        #expect(try decoded(["firstName": "Ada", "authToken": "t"], as: User.self) == User(firstName: "Ada", authToken: "t"))
        let error = #expect(throws: ValueError.self) { try decoded(["firstName": 1], as: User.self) }
        #expect(error?.description.contains("firstName") == true)
    }

    @MainActor @Test func schemasDescribeTypesForAGenericForm() {
        #expect(String?.valueType.schema == ["type": "string", "nullable": true])
        #expect(valueType(of: [Rating].self).schema == [
            "type": "array", "items": ["type": "enum", "cases": ["notSeen", "terrible", "good"], "nullable": false],
            "nullable": false,
        ])
        #expect(valueType(of: User.self).schema == [
            "type": "object", "typeName": "User",
            "members": [
                ["name": "firstName", "type": "string", "nullable": false, "optional": false],
                ["name": "authToken", "type": "string", "nullable": false, "optional": true],
            ],
            "nullable": false,
        ])
    }

    @MainActor @Test func objectMembersAreFoundByProbingTheirDecoder() {
        let members = valueType(of: Shelf.self)
        guard case .object("Shelf", let list) = members else { Issue.record("\(members)"); return }
        #expect(list.map(\.name) == ["label", "count", "ratings", "owner", "size", "next"])
        #expect(list.map(\.isOptional) == [false, false, false, true, false, true])
        #expect(list[1].type == .integer)  // an Int32: any fixed-width integer
        #expect(list[2].type == .array(.enumeration(["notSeen", "terrible", "good"])))
        #expect(list[3].type == valueType(of: User.self))
        #expect(list[4].type == .number)  // a Float
        // Shelf contains itself: inside itself it is named, not probed again.
        #expect(list[5].type == .array(.object("Shelf", [])))
    }

    @Test func labelsAreDerivedFromNames() {
        #expect(defaultLabel(for: "firstName") == "First name")
        #expect(defaultLabel(for: "email") == "Email")
        #expect(defaultLabel(for: "isPresentingAddMovie") == "Is presenting add movie")
        #expect(defaultLabel(for: "Ünïcode") == "Ünïcode")
    }

    @Test(arguments: ["", "a", "A", "URLField", "login.enabled", "x1Y2", "_private", "snake_case", "ALLCAPS", "ends X"])
    func asciiLabelsMatchTheUnicodeRule(name: String) {
        #expect(defaultLabel(for: name) == unicodeLabel(for: name))
    }
}

/// A value as the daemon writes it, its type found at run time (as for any type an exposure names).
@MainActor func coded(_ value: Any) -> JSONValue { DynamicCoders.coder(for: type(of: value)).encode(value) }

@MainActor func valueType(of type: Any.Type) -> ValueType { DynamicCoders.coder(for: type).valueType }

@MainActor func decoded<T>(_ json: JSONValue, as type: T.Type) throws(ValueError) -> T {
    try DynamicCoders.coder(for: T.self).decode(json) as! T
}
