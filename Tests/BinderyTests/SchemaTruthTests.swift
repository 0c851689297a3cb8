import Foundation
import Testing
@testable import Bindery

// Types shaped like the apps' that made schemas silently wrong: each schema must describe exactly
// the value sent (schemaProblems), never part of it or something else.

private enum Genre: String, Codable { case drama, comedy, documentary }

/// A String enum member with no "" case, before and after other members.
private struct ShelfFilm: Codable, Equatable {
    var id: Int
    var title: String
    var genre: Genre
    var year: Int
    var rating: Double?
}

private struct FilmShelf: Codable {
    var name: String
    var films: [ShelfFilm]
    var byGenre: [String: [ShelfFilm]]
}

private enum LoadState<Value> {
    case idle
    case loading
    case loaded(Value)
    case failed(String)
}

/// Custom Codable forms: an array, and a single value.
private struct Span: Codable, Equatable {
    var location: Int
    var length: Int
    init(location: Int, length: Int) { (self.location, self.length) = (location, length) }
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        location = try container.decode(Int.self)
        length = try container.decode(Int.self)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(location)
        try container.encode(length)
    }
}

private struct Slug: Codable, Equatable {
    var text: String
    init(_ text: String) { self.text = text }
    init(from decoder: any Decoder) throws { text = try decoder.singleValueContainer().decode(String.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// An initializer that refuses the probe's placeholders before it has asked for everything.
private struct Checked: Codable {
    var code: String
    var amount: Int
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(String.self, forKey: .code)
        guard code.count == 3 else { throw DecodingError.dataCorruptedError(forKey: .code, in: container, debugDescription: "not ISO 4217") }
        amount = try container.decode(Int.self, forKey: .amount)
    }
}

private struct Options: OptionSet {
    let rawValue: Int
    static let bold = Options(rawValue: 1)
    static let italic = Options(rawValue: 2)
}

@MainActor @Suite struct SchemaTruthTests {
    func check<T>(_ value: T, sourceLocation: SourceLocation = #_sourceLocation) {
        let type = valueType(of: T.self)
        let json = coded(value)
        #expect(schemaProblems(json, type) == [], "\(T.self): \(type.schema)", sourceLocation: sourceLocation)
    }

    @Test func anEnumWithoutAnEmptyCaseDoesNotHideTheMembersAfterIt() {
        guard case .object(_, let members) = valueType(of: ShelfFilm.self) else { Issue.record("not an object"); return }
        #expect(members.map(\.name) == ["id", "title", "genre", "year", "rating"])
        #expect(members[2].type == .enumeration(["drama", "comedy", "documentary"]))
        check(ShelfFilm(id: 1, title: "Heat", genre: .drama, year: 1995, rating: 8.3))
    }

    @Test func listsAndDictionariesOfCodableStructsDescribeTheirElements() {
        let film = ShelfFilm(id: 1, title: "Heat", genre: .drama, year: 1995, rating: nil)
        check(FilmShelf(name: "crime", films: [film], byGenre: ["drama": [film]]))
        guard case .object(_, let members) = valueType(of: FilmShelf.self), case .array(.object("ShelfFilm", let film)) = members[1].type else {
            Issue.record("films is not an array of ShelfFilm: \(valueType(of: FilmShelf.self))"); return
        }
        #expect(film.count == 5)
    }

    @Test func customCodableFormsAreDescribedAsTheyAreSent() {
        #expect(valueType(of: Span.self) == .array(.integer))
        check(Span(location: 0, length: 3))
        #expect(valueType(of: Slug.self) == .string)
        check(Slug("heat-1995"))
        #expect(valueType(of: NSRange.self) == .array(.integer))
        check(NSRange(location: 0, length: 3))
    }

    @Test func aGenericEnumsPayloadIsItsArgument() {
        let films = [ShelfFilm(id: 1, title: "Heat", genre: .drama, year: 1995, rating: nil)]
        check(LoadState<[ShelfFilm]>.loaded(films))
        check(LoadState<[ShelfFilm]>.failed("offline"))
        guard case .union(_, let cases) = valueType(of: LoadState<[ShelfFilm]>.self),
              let loaded = cases.first(where: { $0.name == "loaded" }) else { Issue.record("not a union"); return }
        #expect(loaded.members.first?.type == .array(valueType(of: ShelfFilm.self)))
    }

    @Test func aMeasurementsUnitHasItsMembers() {
        check(Measurement(value: 5, unit: UnitLength.kilometers))
        guard case .object(_, let members) = valueType(of: Measurement<UnitLength>.self),
              let unit = members.first(where: { $0.name == "unit" }), case .object(_, let unitMembers) = unit.type else {
            Issue.record("\(valueType(of: Measurement<UnitLength>.self))"); return
        }
        #expect(unitMembers.map(\.name).contains("symbol"))
    }

    @Test func anInitializerThatRefusesPlaceholdersIsDescribedAsAnyNotAsPartOfItself() {
        #expect(valueType(of: Checked.self) == .any)
    }

    @Test func anOptionSetIsItsRawValueAndIsReadBack() throws {
        #expect(valueType(of: Options.self) == .integer)
        check(Options([.bold, .italic]))
        #expect(coded(Options([.bold, .italic])) == 3)
        #expect(try decoded(3, as: Options.self) == [.bold, .italic])
    }
}
