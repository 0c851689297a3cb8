#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Converts Swift arrays to JSON once, and long ones incrementally: the JSON of the last array of
/// each element type is kept; the same array again gets it back, and the next long array of that
/// type reuses the JSON of the elements it kept unchanged, converting only the rest. A store of
/// 100,000 movies that gains one costs one conversion, not 100,000 — and every session that reads
/// it gets the same JSON, so their lists diff at once.
///
/// "Unchanged" is decided without `==` (which calls canonically equivalent strings equal): an element
/// is reused only when its bytes are identical to the old one's, which for a value with no object
/// references inside means the same value exactly. Element types that hold object references (whose
/// contents could change under the same bytes) are converted in full, except within one collection
/// of changes (see ``sharingConversions(_:)``); short arrays are reused only when the same array.
enum ArrayConversions {
    /// Arrays shorter than this, when not the same array again, are converted in full: finding the
    /// elements they kept would not pay.
    static let minimumCount = 64

    // Unchecked: `source` is an array of reference-free values, never mutated once stored.
    private struct Entry: @unchecked Sendable {
        let source: Any
        let json: [JSONValue]
    }

    private static let last = Mutex<[ObjectIdentifier: Entry]>([:])
    private static let referenceFree = Mutex<[ObjectIdentifier: Bool]>([:])

    /// `array` as JSON, each element by `encode` (its `BinderyValue` form, or its dynamic coder's:
    /// the same for one element type either way).
    static func json<Element>(for array: [Element], encode: (Element) -> JSONValue) -> JSONValue {
        let sharedKey = SharedKey(type: ObjectIdentifier(Element.self), identity: identity(array))
        if let json = shared.withLock({ $0?[sharedKey]?.json }) { return .array(json) }
        let json = convert(array, encode: encode)
        shared.withLock { $0?[sharedKey] = Entry(source: array, json: json) }
        return .array(json)
    }

    private static func convert<Element>(_ array: [Element], encode: (Element) -> JSONValue) -> [JSONValue] {
        guard isReferenceFree(Element.self) else { return array.map(encode) }
        let type = ObjectIdentifier(Element.self)
        let previous = last.withLock { $0[type] }
        let old = previous?.source as? [Element]
        let json: [JSONValue]
        if let previous, let old, identity(old) == identity(array) {
            // The same array again, whatever its length: sessions opened one after another on one
            // store share its JSON (so later changes release one copy, not one per session).
            json = previous.json
        } else if let previous, let old, array.count >= minimumCount {
            json = convert(array, reusing: old, previous.json, encode: encode)
        } else {
            json = array.map(encode)
        }
        last.withLock { $0[type] = Entry(source: array, json: json) }
        return json
    }

    // MARK: Sharing within one collection

    private struct SharedKey: Hashable {
        let type: ObjectIdentifier
        let identity: ArrayIdentity
    }

    /// While ``sharingConversions(_:)`` runs: every array converted, by element type and storage.
    private static let shared = Mutex<[SharedKey: Entry]?>(nil)

    /// Runs `body` with conversions shared: an array converted again within it (the same storage,
    /// as when a thousand movie lists read one store's list) gets the JSON of its first conversion,
    /// whatever its length or element type. Sound because nothing changes between the reads of one
    /// collection of changes (only getters run), and each entry keeps its array alive, so a storage
    /// address cannot be reused for another array meanwhile.
    static func sharingConversions<T>(_ body: () -> T) -> T {
        shared.withLock { $0 = [:] }
        defer { shared.withLock { $0 = nil } }
        return body()
    }

    /// `new` as JSON, taking the common prefix and suffix with `old` from `oldJSON`.
    private static func convert<Element>(_ new: [Element], reusing old: [Element], _ oldJSON: [JSONValue],
                                         encode: (Element) -> JSONValue) -> [JSONValue] {
        // The same array again (every session reading one store's list): nothing to compare.
        if new.count == old.count, new.withUnsafeBufferPointer({ $0.baseAddress }) == old.withUnsafeBufferPointer({ $0.baseAddress }) {
            return oldJSON
        }
        let (prefix, suffix) = commonEnds(new, old)
        if prefix == new.count, new.count == old.count { return oldJSON }
        var json: [JSONValue] = []
        json.reserveCapacity(new.count)
        json.append(contentsOf: oldJSON[..<prefix])
        for element in new[prefix..<(new.count - suffix)] { json.append(encode(element)) }
        json.append(contentsOf: oldJSON[(old.count - suffix)...])
        derivations.withLock { $0 = Derivation(old: identity(oldJSON), new: identity(json), prefix: prefix, suffix: suffix) }
        return json
    }

    /// How many leading and trailing elements the two arrays have byte for byte in common (the two
    /// ends not overlapping), compared a block of memory at a time.
    private static func commonEnds<Element>(_ new: [Element], _ old: [Element]) -> (prefix: Int, suffix: Int) {
        let stride = MemoryLayout<Element>.stride, size = MemoryLayout<Element>.size
        return new.withUnsafeBytes { newBytes in
            old.withUnsafeBytes { oldBytes in
                let shorter = min(new.count, old.count)
                // Elements' own bytes only: the padding after each (stride - size) may hold anything.
                func same(_ newIndex: Int, _ oldIndex: Int, _ count: Int) -> Bool {
                    let newStart = newBytes.baseAddress! + newIndex * stride, oldStart = oldBytes.baseAddress! + oldIndex * stride
                    if size == stride { return memcmp(newStart, oldStart, count * stride) == 0 }
                    for offset in Swift.stride(from: 0, to: count * stride, by: stride)
                    where memcmp(newStart + offset, oldStart + offset, size) != 0 {
                        return false
                    }
                    return true
                }
                var prefix = 0
                while prefix < shorter {
                    let block = min(256, shorter - prefix)
                    if same(prefix, prefix, block) { prefix += block; continue }
                    while same(prefix, prefix, 1) { prefix += 1 }
                    break
                }
                var suffix = 0
                while suffix < shorter - prefix {
                    let block = min(256, shorter - prefix - suffix)
                    if same(new.count - suffix - block, old.count - suffix - block, block) { suffix += block; continue }
                    while same(new.count - 1 - suffix, old.count - 1 - suffix, 1) { suffix += 1 }
                    break
                }
                return (prefix, suffix)
            }
        }
    }

    /// The last incremental conversion: which JSON array was made from which, keeping what.
    private struct Derivation: Sendable {
        let old: ArrayIdentity, new: ArrayIdentity
        let prefix: Int, suffix: Int
    }

    private static let derivations = Mutex<Derivation?>(nil)

    /// When `new` was made from `old` by the last incremental conversion: the elements they share at
    /// each end. Lets a splice of the two be found without comparing them again.
    static func sharedEnds(from old: [JSONValue], to new: [JSONValue]) -> (prefix: Int, suffix: Int)? {
        guard let derivation = derivations.withLock({ $0 }), derivation.old == identity(old),
              derivation.new == identity(new) else { return nil }
        return (derivation.prefix, derivation.suffix)
    }

    private static func identity<Element>(_ array: [Element]) -> ArrayIdentity {
        ArrayIdentity(address: array.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, count: array.count)
    }

    /// Whether values of this type hold no object reference: judged once per type, from its metadata.
    private static func isReferenceFree<Element>(_ elementType: Element.Type) -> Bool {
        let type = ObjectIdentifier(Element.self)
        if let known = referenceFree.withLock({ $0[type] }) { return known }
        let verdict = !ReferenceScan.mayHoldReference(Element.self)
        referenceFree.withLock { $0[type] = verdict }
        return verdict
    }
}

/// An array's storage and length: equal for arrays that are the same array.
struct ArrayIdentity: Hashable, Sendable {
    let address: UInt
    let count: Int
}
