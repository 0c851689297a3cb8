import Synchronization

/// Converts long Swift arrays to JSON incrementally: the JSON of the last array of each element type
/// is kept, and the next array of that type reuses the JSON of the elements it kept unchanged,
/// converting only the rest. A store of 100,000 movies that gains one costs one conversion, not
/// 100,000 — and every session that reads it gets the same JSON, so their lists diff at once.
///
/// "Unchanged" is decided without `==` (which calls canonically equivalent strings equal): an element
/// is reused only when its bytes are identical to the old one's, which for a value with no object
/// references inside means the same value exactly. Element types that hold object references (whose
/// contents could change under the same bytes) are always converted in full; so are short arrays.
enum ArrayConversions {
    /// Arrays shorter than this are converted in full: reuse would not pay.
    static let minimumCount = 64

    // Unchecked: `source` is an array of reference-free values, never mutated once stored.
    private struct Entry: @unchecked Sendable {
        let source: Any
        let json: [JSONValue]
    }

    private static let last = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let referenceFree = Mutex<[ObjectIdentifier: Bool]>([:])

    static func json<Element: BinderyValue>(for array: [Element]) -> JSONValue {
        guard array.count >= minimumCount, isReferenceFree(array[0]) else { return .array(array.map(\.jsonValue)) }
        let type = ObjectIdentifier(Element.self)
        let previous = last.withLock { $0[type] }
        let json: [JSONValue]
        if let previous, let old = previous.source as? [Element] {
            json = convert(array, reusing: old, previous.json)
        } else {
            json = array.map(\.jsonValue)
        }
        last.withLock { $0[type] = Entry(source: array, json: json) }
        return .array(json)
    }

    /// `new` as JSON, taking the common prefix and suffix with `old` from `oldJSON`.
    private static func convert<Element: BinderyValue>(_ new: [Element], reusing old: [Element], _ oldJSON: [JSONValue]) -> [JSONValue] {
        let shorter = min(new.count, old.count)
        var prefix = 0
        while prefix < shorter, identical(new[prefix], old[prefix]) { prefix += 1 }
        if prefix == new.count, new.count == old.count { return oldJSON }
        var suffix = 0
        while suffix < shorter - prefix, identical(new[new.count - 1 - suffix], old[old.count - 1 - suffix]) { suffix += 1 }
        var json: [JSONValue] = []
        json.reserveCapacity(new.count)
        json.append(contentsOf: oldJSON[..<prefix])
        for element in new[prefix..<(new.count - suffix)] { json.append(element.jsonValue) }
        json.append(contentsOf: oldJSON[(old.count - suffix)...])
        return json
    }

    /// Whether two values have the same bytes (so, for reference-free values, are the same exactly).
    private static func identical<Element>(_ left: Element, _ right: Element) -> Bool {
        withUnsafeBytes(of: left) { leftBytes in
            withUnsafeBytes(of: right) { rightBytes in leftBytes.elementsEqual(rightBytes) }
        }
    }

    /// Whether values of this type hold no object reference: judged once per type, on a sample.
    private static func isReferenceFree<Element>(_ sample: Element) -> Bool {
        let type = ObjectIdentifier(Element.self)
        if let known = referenceFree.withLock({ $0[type] }) { return known }
        let verdict = !containsReference(sample)
        referenceFree.withLock { $0[type] = verdict }
        return verdict
    }

    private static func containsReference(_ value: Any) -> Bool {
        if type(of: value) is AnyClass { return true }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .collection || mirror.displayStyle == .dictionary || mirror.displayStyle == .set {
            return true  // a nested collection: its storage is a reference; not worth proving further
        }
        return mirror.children.contains { containsReference($0.value) }
    }
}
