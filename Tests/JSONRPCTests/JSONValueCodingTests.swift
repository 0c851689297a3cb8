import Testing

import JSONRPC

private struct Address: Codable, Equatable {
    var street: String
    var zip: String?
}

private struct User: Codable, Equatable {
    enum Role: String, Codable { case reader, editor }

    var lastName: String
    var firstName: String
    var age: Int
    var role: Role
    var nickname: String?
    var address: Address
    var scores: [Double]
}

private let ada = User(
    lastName: "Lovelace", firstName: "Ada", age: 36, role: .editor, nickname: nil,
    address: Address(street: "St James's Square", zip: nil), scores: [1, 2.5])

private func encode<T: Encodable>(_ value: T) throws -> JSONValue { try JSONValueEncoder().encode(value) }

private func decode<T: Decodable>(_ type: T.Type, _ value: JSONValue) throws -> T {
    try JSONValueDecoder().decode(type, from: value)
}

/// The error `decode` throws; fails the test if it does not throw one.
private func decodingError<T: Decodable>(_ type: T.Type, _ value: JSONValue) -> DecodingError? {
    #expect(throws: DecodingError.self) { try decode(type, value) }
}

@Test func nestedStructsRoundTripInDeclarationOrderWithNilOmitted() throws {
    let value = try encode(ada)
    let expected: JSONValue = [
        "lastName": "Lovelace", "firstName": "Ada", "age": 36, "role": "editor",
        "address": ["street": "St James's Square"], "scores": [1.0, 2.5],
    ]
    #expect(value == expected)  // `JSONObject` equality compares member order too.
    #expect(try decode(User.self, value) == ada)
    #expect(decodingError(User.Role.self, "owner")?.summary
        == "Cannot initialize Role from invalid String value owner")
}

@Test func nullAndMissingMembersDecodeAsNil() throws {
    let value: JSONValue = [
        "lastName": "L", "firstName": "A", "age": 1, "role": "reader", "nickname": nil,
        "address": ["street": "S", "zip": nil], "scores": [],
    ]
    let user = try decode(User.self, value)
    #expect(user.nickname == nil && user.address.zip == nil)
}

@Test func arraysOfOptionalsKeepTheirNulls() throws {
    let values: [Int?] = [1, nil, 3]
    #expect(try encode(values) == [1, nil, 3])
    #expect(try decode([Int?].self, [1, nil, 3]) == values)
    #expect(try decode([[String]].self, [["a"], []]) == [["a"], []])
}

@Test func dictionariesRoundTripWithSortedKeys() throws {
    let counts = ["pear": 2, "apple": 1, "fig": 3]
    let value = try encode(counts)
    #expect(value.objectValue?.keys == ["apple", "fig", "pear"])
    #expect(try decode([String: Int].self, value) == counts)

    let byNumber = [10: "ten", 2: "two", -1: "minus one"]
    #expect(try encode(byNumber).objectValue?.keys == ["-1", "2", "10"])
    #expect(try decode([Int: String].self, encode(byNumber)) == byNumber)

    let large = Dictionary(uniqueKeysWithValues: (0..<5000).map { ("key\($0)", [$0]) })
    #expect(try decode([String: [Int]].self, encode(large)) == large)
}

@Test func largeArraysRoundTrip() throws {
    let addresses = (0..<20000).map { Address(street: "\($0)", zip: $0.isMultiple(of: 2) ? nil : "z") }
    #expect(try decode([Address].self, encode(addresses)) == addresses)
}

private func checkRange<T: FixedWidthInteger & Codable>(_ type: T.Type) throws {
    // Above `Int.max` a `UInt64` travels as a `Double`, exact only while it fits in 53 bits of mantissa.
    let largest = T.bitWidth == 64 && !T.isSigned ? T(Int.max) + 1 : T.max
    #expect(try decode(T.self, encode(largest)) == largest)
    #expect(try decode(T.self, encode(T.min)) == T.min)
    #expect(try decode(T.self, .double(3)) == 3)
    if T.bitWidth < 64 {
        #expect(try encode(T.max) == .int(Int(T.max)))
        let error = decodingError(T.self, .int(Int(T.max) + 1))
        #expect(error?.summary == "\(Int(T.max) + 1) does not fit in \(T.self)")
    }
    if !T.isSigned {
        #expect(decodingError(T.self, -1)?.summary == "-1 does not fit in \(T.self)")
    }
}

@Test func everyIntegerWidthIsRangeChecked() throws {
    try checkRange(Int8.self)
    try checkRange(Int16.self)
    try checkRange(Int32.self)
    try checkRange(Int64.self)
    try checkRange(Int.self)
    try checkRange(UInt8.self)
    try checkRange(UInt16.self)
    try checkRange(UInt32.self)
    try checkRange(UInt64.self)
    try checkRange(UInt.self)
    #expect(try encode(UInt64.max) == .double(Double(UInt64.max)))
    #expect(decodingError(UInt64.self, try encode(UInt64.max))?.summary
        == "1.8446744073709552e+19 does not fit in UInt64")
    #expect(decodingError(Int.self, .double(1e20))?.summary == "1e+20 does not fit in Int")
}

@Test func numbersConvertOnlyWhereJSONIsVague() throws {
    #expect(try decode(Double.self, 3) == 3.0)
    #expect(try decode(Float.self, 3) == 3.0)
    #expect(try decode([Float].self, [0.5, 2]) == [0.5, 2])
    #expect(try encode(Float(0.1)) == .double(0.1))
    #expect(decodingError(Float.self, .double(1e300))?.summary == "1e+300 does not fit in Float")

    struct Count: Codable { var count: Int }
    let error = decodingError(Count.self, ["count": 42.5])
    #expect(error?.summary == "at count: 42.5 is not an integer")
    guard case .dataCorrupted(let context) = error else {
        Issue.record("unexpected \(String(describing: error))")
        return
    }
    #expect(context.debugDescription == "42.5 at \"count\" is not an integer")
    #expect(context.codingPath.map(\.stringValue) == ["count"])

    #expect(decodingError(Int.self, "42")?.summary == "expected an integer, found a string")
    #expect(decodingError(String.self, 42)?.summary == "expected a string, found a number")
    #expect(decodingError(Bool.self, 1)?.summary == "expected a boolean, found a number")
}

@Test func typeMismatchNamesThePath() throws {
    struct Session: Codable { var user: User }
    var value: JSONValue = ["user": try encode(ada)]
    if case .object(var session) = value, case .object(var user)? = session["user"] {
        user["firstName"] = 42
        session["user"] = .object(user)
        value = .object(session)
    }
    let error = decodingError(Session.self, value)
    guard case .typeMismatch(let type, let context) = error else {
        Issue.record("unexpected \(String(describing: error))")
        return
    }
    #expect(type is String.Type)
    #expect(context.codingPath.map(\.stringValue) == ["user", "firstName"])
    #expect(context.debugDescription == "expected a string at \"user.firstName\", found a number")
    #expect(error?.summary == "at user.firstName: expected a string, found a number")
}

@Test func pathsShowArrayIndicesAndOddKeys() {
    #expect(decodingError([Address].self, [["street": "a"], ["street": true]])?.summary
        == "at [1].street: expected a string, found a boolean")
    #expect(decodingError([String: Int].self, ["two words": "x"])?.summary
        == "at [\"two words\"]: expected an integer, found a string")
    #expect(decodingError(Address.self, ["street": nil])?.summary
        == "at street: expected a string, found null")
    #expect(decodingError([Int].self, ["a": 1])?.summary == "expected an array, found an object")
}

@Test func missingMembersAreKeyNotFound() {
    struct Login: Codable { var user: String; var authToken: String }
    let error = decodingError(Login.self, ["user": "ada"])
    guard case .keyNotFound(let key, _) = error else {
        Issue.record("unexpected \(String(describing: error))")
        return
    }
    #expect(key.stringValue == "authToken")
    #expect(error?.summary == "missing member \"authToken\"")

    struct Outer: Codable { var login: Login }
    #expect(decodingError(Outer.self, ["login": ["user": "ada"]])?.summary
        == "at login: missing member \"authToken\"")
}

@Test func nonFiniteNumbersCannotBeEncoded() {
    struct Stats: Encodable { var ratio: Double }
    #expect {
        try encode(Stats(ratio: .nan))
    } throws: { error in
        (error as? EncodingError)?.summary == "at ratio: nan is not a valid JSON number"
    }
}

@Test func conflictingEncodesAreReportedNotDropped() {
    struct Confused: Encodable {
        func encode(to encoder: any Encoder) throws {
            var single = encoder.singleValueContainer()
            try single.encode(1)
            _ = encoder.unkeyedContainer()
        }
    }
    #expect {
        try encode(["x": Confused()])
    } throws: { error in
        let summary = (error as? EncodingError)?.summary
        return summary == "at x: an unkeyed container conflicts with a value already encoded there"
    }
}

/// Encodes with hand-written containers: a key written twice, nested containers, a super encoder.
private struct Handmade: Codable, Equatable {
    var name: String
    var tags: [String]
    var base: Int

    enum Keys: String, CodingKey { case name, meta, tags }
    enum MetaKeys: String, CodingKey { case version }

    init(name: String, tags: [String], base: Int) { (self.name, self.tags, self.base) = (name, tags, base) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("draft", forKey: .name)
        var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        try meta.encode(2, forKey: .version)
        var tagList = container.nestedUnkeyedContainer(forKey: .tags)
        for tag in tags { try tagList.encode(tag) }
        try container.encode(name, forKey: .name)  // Replaces "draft" in place.
        try base.encode(to: container.superEncoder())
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
        #expect(try meta.decode(Int.self, forKey: .version) == 2)
        var tagList = try container.nestedUnkeyedContainer(forKey: .tags)
        tags = []
        while !tagList.isAtEnd { tags.append(try tagList.decode(String.self)) }
        base = try Int(from: container.superDecoder())
        #expect(container.allKeys.map(\.rawValue) == ["name", "meta", "tags"])
        #expect(container.contains(.meta))
    }
}

@Test func handWrittenContainersKeepOrderAndReplaceKeys() throws {
    let value = Handmade(name: "final", tags: ["a", "b"], base: 7)
    let encoded = try encode(value)
    #expect(encoded == ["name": "final", "meta": ["version": 2], "tags": ["a", "b"], "super": 7])
    #expect(try decode(Handmade.self, encoded) == value)
}
