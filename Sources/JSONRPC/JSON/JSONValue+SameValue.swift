#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension JSONValue {
    /// Whether two values are the same on the wire, exactly: what a client that holds one would
    /// also hold after being sent the other.
    ///
    /// Stricter than `==` where Swift's equality hides a difference a client can see: strings are
    /// compared by their Unicode scalars (`"\u{E9}"` and `"e\u{301}"` differ, though Swift calls them
    /// equal), and numbers by value *and* sign (`-0.0` and `0` differ). Looser in one way only: an
    /// integer and a number with the same exact value are the same (`3` and `3.0`), at any depth,
    /// so that a client that wrote `3` into a Double field is not told `3.0`.
    ///
    /// Bindery diffs every value it sends with this test, and compares what a client wrote with
    /// what the model then holds the same way.
    public func isSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.int(let left), .int(let right)):
            return left == right
        case (.double(let left), .double(let right)):
            return left.bitPattern == right.bitPattern
        case (.int(let left), .double(let right)), (.double(let right), .int(let left)):
            // -0.0 is not the integer 0: its sign shows on the wire and in what a model derives.
            return Double(exactly: left) == right && right.sign == .plus
        case (.string(let left), .string(let right)):
            return left.hasSameScalars(as: right)
        case (.array(let left), .array(let right)):
            // Storage shared (an element converted once and reused) is the same value, at no cost.
            return left.count == right.count && (sharesStorage(left, right) || zip(left, right).allSatisfy { $0.isSameValue(as: $1) })
        case (.object(let left), .object(let right)):
            return left.count == right.count && (sharesStorage(left.members, right.members) || zip(left.members, right.members).allSatisfy {
                $0.key.hasSameScalars(as: $1.key) && $0.value.isSameValue(as: $1.value)
            })
        default:
            return false
        }
    }

    /// Whether Swift's own `==` would call the two values equal: strings by canonical equivalence,
    /// numbers by value (`-0.0 == 0`). An `@Observable` setter skips its change notification when
    /// the new value is `==` to the old, so a pair that is `isSwiftEqual` but not ``isSameValue(as:)``
    /// is a change that Observation does not report.
    public func isSwiftEqual(to other: JSONValue) -> Bool {
        switch (self, other) {
        case (.int(let left), .double(let right)), (.double(let right), .int(let left)):
            return Double(exactly: left) == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { $0.isSwiftEqual(to: $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count && zip(left.members, right.members).allSatisfy {
                $0.key == $1.key && $0.value.isSwiftEqual(to: $1.value)
            }
        default:
            return self == other
        }
    }
}

extension String {
    /// Whether the two strings are the same Unicode scalars (the same UTF-8 bytes), unlike `==`,
    /// which calls canonically equivalent strings equal. A byte comparison of the contiguous UTF-8
    /// both strings almost always are: this runs on every value diffed.
    public func hasSameScalars(as other: String) -> Bool {
        let count = utf8.count
        guard count == other.utf8.count else { return false }
        // In place, without the `var` copies `withUTF8` needs (a retain and release each, which
        // made this 600 instructions a call); a string without contiguous UTF-8 (bridged) byte by byte.
        let same = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                count == 0 || memcmp(left.baseAddress!, right.baseAddress!, count) == 0
            }
        }
        return (same ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

/// Whether two arrays are views of the same storage (so, of the same elements).
private func sharesStorage<Element>(_ left: [Element], _ right: [Element]) -> Bool {
    guard !left.isEmpty else { return false }
    let leftStart = left.withUnsafeBufferPointer { $0.baseAddress }
    return right.withUnsafeBufferPointer { $0.baseAddress == leftStart }
}
