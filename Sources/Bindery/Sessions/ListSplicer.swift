/// Finds how a list changed, as a splice: the common prefix and suffix of the old and new values
/// are kept, what lies between is deleted and replaced. O(n) compares, with the exact comparison
/// used for all diffing; it covers an append, an insert, a delete and a single replacement, and
/// sends a reorder whole.
///
/// One splicer serves one collection of changes: sessions that were sent the same previous list
/// (the same array storage: they were read in the same collection) and now read the same new one
/// share one computation, so a save fanned out to many lists diffs once.
@MainActor
final class ListSplicer {
    enum Outcome {
        case unchanged
        /// Delete `delete` elements at `at` and insert `insert` there.
        case splice(at: Int, delete: Int, insert: ArraySlice<JSONValue>)
        /// Send the whole new value: no element is kept, so a splice would not be smaller.
        case whole
    }

    private struct Key: Hashable {
        let old: UInt, oldCount: Int, new: UInt, newCount: Int
    }

    private var known: [Key: Outcome] = [:]

    func splice(from old: [JSONValue], to new: [JSONValue]) -> Outcome {
        let key = Key(old: storage(of: old), oldCount: old.count, new: storage(of: new), newCount: new.count)
        if let outcome = known[key] { return outcome }
        let outcome = Self.compute(from: old, to: new)
        known[key] = outcome
        return outcome
    }

    static func compute(from old: [JSONValue], to new: [JSONValue]) -> Outcome {
        if let (prefix, suffix) = ArrayConversions.sharedEnds(from: old, to: new) {
            // `new` was converted from `old` incrementally: the ends it kept are known.
            if prefix == old.count, prefix == new.count { return .unchanged }
            guard prefix + suffix > 0 else { return .whole }
            return .splice(at: prefix, delete: old.count - prefix - suffix, insert: new[prefix..<(new.count - suffix)])
        }
        var prefix = 0
        let shorter = min(old.count, new.count)
        while prefix < shorter, old[prefix].isSameValue(as: new[prefix]) { prefix += 1 }
        if prefix == old.count, prefix == new.count { return .unchanged }
        var suffix = 0
        while suffix < shorter - prefix, old[old.count - 1 - suffix].isSameValue(as: new[new.count - 1 - suffix]) {
            suffix += 1
        }
        guard prefix + suffix > 0 else { return .whole }
        return .splice(at: prefix, delete: old.count - prefix - suffix, insert: new[prefix..<(new.count - suffix)])
    }

    /// The address of an array's elements: the same for arrays that share storage.
    private func storage(of array: [JSONValue]) -> UInt {
        array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    }
}
