import SeededRandom
import Testing
@testable import Bindery

/// Long arrays are converted to JSON incrementally, reusing the JSON of unchanged elements — and
/// still exactly: what comes out is always what a full conversion gives.
@MainActor @Suite(.serialized) struct ArrayConversionsTests {
    struct Row: Codable, Equatable {
        var id: Int
        var title: String
    }

    final class Box: Codable {
        var title: String
        init(_ title: String) { self.title = title }
    }

    func full<Element>(_ array: [Element]) -> JSONValue { .array(array.map { coded($0) }) }

    @Test func incrementalConversionEqualsAFullOne() {
        var rows = (0..<200).map { Row(id: $0, title: "movie \($0)") }
        var random = SplitMix64(seed: 4)
        for _ in 0..<50 {
            switch random.next() % 4 {
            case 0: rows.append(Row(id: rows.count, title: "new"))
            case 1: rows.insert(Row(id: -1, title: "inserted"), at: Int(random.next() % UInt64(rows.count)))
            case 2: rows.remove(at: Int(random.next() % UInt64(rows.count)))
            default: rows[Int(random.next() % UInt64(rows.count))].title = "changed \(random.next() % 10)"
            }
            #expect(coded(rows).isSameValue(as: full(rows)))
        }
    }

    @Test func aCanonicallyEquivalentChangeIsNotMissed() {
        var rows = (0..<100).map { Row(id: $0, title: "caf\u{E9}") }
        _ = coded(rows)
        rows[50].title = "cafe\u{301}"  // == to the old title, but not the same scalars
        let json = coded(rows)
        #expect(json.isSameValue(as: full(rows)))
        #expect(json.arrayValue?[50]["title"]?.stringValue?.unicodeScalars.count == 5)
    }

    struct Padded: Codable {
        var title: String
        var flag: Bool  // 17 bytes of value in a 24-byte stride: padding that may hold anything
    }

    @Test func anAppendIsKnownAsOneWithoutComparingTheJSONAgain() {
        var rows = (0..<100).map { Padded(title: "row \($0)", flag: $0 % 2 == 0) }
        guard case .array(let before) = coded(rows) else { return }
        rows.append(Padded(title: "new", flag: true))
        guard case .array(let after) = coded(rows) else { return }
        let ends = ArrayConversions.sharedEnds(from: before, to: after)
        #expect(ends?.prefix == 100 && ends?.suffix == 0)
        guard case .splice(100, 0, let insert) = ListSplicer.compute(from: before, to: after) else {
            Issue.record("expected an append")
            return
        }
        #expect(insert.count == 1)
    }

    @Test func elementsWithReferencesAreConvertedInFull() {
        let boxes = (0..<100).map { Box("box \($0)") }
        _ = coded(boxes)
        boxes[7].title = "mutated inside the same reference"
        #expect(coded(boxes).isSameValue(as: full(boxes)))
    }
}
