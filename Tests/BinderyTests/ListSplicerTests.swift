import Testing
@testable import Bindery

/// The splice of a list change: common prefix and suffix kept, the middle replaced; exact element
/// comparison; a list that kept nothing goes whole.
@MainActor
@Suite struct ListSplicerTests {
    func splice(_ old: [JSONValue], _ new: [JSONValue]) -> String {
        switch ListSplicer.compute(from: old, to: new) {
        case .unchanged: "unchanged"
        case .whole: "whole"
        case .splice(let at, let delete, let insert): "at \(at) delete \(delete) insert \(Array(insert))"
        }
    }

    @Test func appendInsertDeleteReplace() {
        #expect(splice([1, 2, 3], [1, 2, 3, 4]) == "at 3 delete 0 insert [4]")
        #expect(splice([1, 2, 3], [1, 9, 2, 3]) == "at 1 delete 0 insert [9]")
        #expect(splice([1, 2, 3], [1, 3]) == "at 1 delete 1 insert []")
        #expect(splice([1, 2, 3], [1, 7, 3]) == "at 1 delete 1 insert [7]")
        #expect(splice([1, 2, 3], [1, 2, 3]) == "unchanged")
    }

    @Test func aListThatKeptNothingGoesWhole() {
        #expect(splice([], [1]) == "whole")
        #expect(splice([1, 2, 3], [3, 2, 1]) == "whole")  // a reorder
        #expect(splice([1, 2], [3, 4]) == "whole")
        #expect(splice([1], []) == "whole")
    }

    @Test func elementsCompareExactly() {
        // Canonically equivalent, not the same scalars: a change.
        #expect(splice(["\u{E9}", "x"], ["e\u{301}", "x"]) == #"at 0 delete 1 insert ["é"]"#)
        // An integer and a number of the same value: the same.
        #expect(splice([3, 4], [3.0, 4]) == "unchanged")
        #expect(splice([0, 4], [-0.0, 4]) == "at 0 delete 1 insert [-0.0]")
    }

    @Test func sessionsThatReadTheSameListShareOneDiff() {
        let splicer = ListSplicer()
        let old: [JSONValue] = Array(repeating: 1, count: 100)
        let new = old + [2]
        for _ in 0..<3 {
            guard case .splice(let at, 0, let insert) = splicer.splice(from: old, to: new) else {
                Issue.record("expected a splice")
                return
            }
            #expect(at == 100 && Array(insert) == [2])
        }
    }
}
