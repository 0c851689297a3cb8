#if !BINDERY_PUBLIC_OBSERVATION_ONLY
@_spi(SwiftUI) import Observation
import CSwiftRuntime

/// An Observation registration that stays until it is cancelled: Observation's SPI (the one SwiftUI
/// uses, `ObservationTracking._installTracking(_:didSet:)`), where the public
/// `withObservationTracking(_:onChange:)` fires once and must be made again after every change.
///
/// Made from the accesses of a read (``accessList(_:)``), it calls its closure after every change
/// to anything that read touched, until ``cancel()``. ``covers(_:)`` tells whether the accesses of
/// a later read are exactly the ones registered: then the registration is kept and nothing is
/// installed (the common case: a form whose members read the same stored properties every time).
/// Cheaper still, ``Accesses/readAgain(_:)`` reads into a list already holding what an earlier read
/// touched, and tells whether anything was added.
///
/// What it relies on beyond the public API, each checked once per process by ``isAvailable``: the
/// SPI itself (a toolchain without it fails to compile this file: build with
/// `-DBINDERY_PUBLIC_OBSERVATION_ONLY` to use the public API only), the C entry points of
/// Observation's thread-local access list (hidden in libswiftObservation.so: reached by a static
/// link, as binderyd's, or found in the library's symbol table, as in a daemon `swift build` links
/// dynamically: see CSwiftRuntime), and the layout of `_AccessList` (a dictionary from a registrar's id to the registrar and the key paths read of it), read to compare and count lists.
/// Should any of them differ, ``isAvailable`` is false and ``SessionTracking`` uses the public API;
/// `binderyd --version` then says so, and `StdioTests.helpAndVersionPrintAndExit` fails.
struct LastingRegistration: @unchecked Sendable {
    private let tracking: ObservationTracking
    private let entries: Entries

    /// The accesses of one read: Observation's `_AccessList`, held as the one property it has
    /// (``Entries``), whose layout this module knows, so that keeping and moving it is inlined
    /// code, not calls through the value witnesses of a type of another module.
    struct Accesses: @unchecked Sendable {
        /// Observation writes an `_AccessList?` here (same layout: checked by ``isAvailable``).
        fileprivate var slot: Entries?
        fileprivate var entries: Entries { slot ?? [:] }
        fileprivate var list: ObservationTracking._AccessList { unsafeBitCast(entries, to: ObservationTracking._AccessList.self) }
        fileprivate init(_ entries: Entries) {
            slot = entries
        }

        /// How many (registrar, key path) pairs the list holds. Counted when asked, not kept: a
        /// session holds its list, and a count beside it would make every session larger.
        var count: Int {
            var count = 0
            if let slot { for entry in slot.values { count += entry.properties.count } }
            return count
        }

        /// Runs `reads` recording into this list, which keeps what it holds: Observation then only
        /// looks each access up (no storage made, none freed, no new entry hashed in). True when
        /// the reads touched something the list did not hold. The list must be this value's alone
        /// (not shared with a registration), or the first access would copy it.
        mutating func readAgain(_ reads: () -> Void) -> Bool {
            let before = count
            withUnsafeMutablePointer(to: &slot) { pointer in
                let previous = bindery_observation_access_list_get()
                bindery_observation_access_list_set(UnsafeMutableRawPointer(pointer))
                defer { bindery_observation_access_list_set(previous) }
                reads()
            }
            return count != before
        }
    }

    /// Installs a registration for `accesses`; `changed` runs, on the writer's thread, after each
    /// change to any of them.
    init(_ accesses: Accesses, changed: @escaping @Sendable () -> Void) {
        tracking = ObservationTracking(accesses.list)
        entries = accesses.entries
        ObservationTracking._installTracking(tracking, didSet: { _ in changed() })
    }

    /// Removes the registration from every registrar it was installed in.
    func cancel() {
        tracking.cancel()
    }

    /// Whether `accesses` are exactly the ones this registration was made for (same registrars,
    /// same key paths): a read that touched them needs no new registration.
    func covers(_ accesses: Accesses) -> Bool {
        let new = accesses.entries
        guard new.count == entries.count else { return false }
        for (id, entry) in new {
            // The registrar itself, not only its id: this registration keeps the old one alive, so
            // its address cannot have been reused, and a registrar made since compares different.
            guard let old = entries[id], old.context === entry.context,
                  old.properties.count == entry.properties.count else { return false }
            for keyPath in entry.properties {
                // Key paths from the same literal are one object; compare by value only otherwise.
                if !old.properties.contains(where: { $0 === keyPath }), !old.properties.contains(keyPath) { return false }
            }
        }
        return true
    }

    /// Runs `reads` and returns what they accessed (nil: no observable property). The accesses go
    /// to this read only, not to an enclosing tracking's (a child session opened during its
    /// parent's read tracks its own reads; the parent shows it by id, so it needs none of them).
    static func accessList(_ reads: () -> Void) -> Accesses? {
        var list: ObservationTracking._AccessList?
        withUnsafeMutablePointer(to: &list) { pointer in
            let previous = bindery_observation_access_list_get()
            bindery_observation_access_list_set(UnsafeMutableRawPointer(pointer))
            defer { bindery_observation_access_list_set(previous) }
            reads()
        }
        return list.map { Accesses(unsafeBitCast($0, to: Entries.self)) }
    }

    /// `_AccessList`'s one stored property: per registrar (by the id of its context), the context
    /// (one reference: its locked state) and the key paths read.
    fileprivate typealias Entries = [ObjectIdentifier: Entry]
    fileprivate struct Entry {
        let context: AnyObject
        let properties: Set<AnyKeyPath>
    }

    /// Whether Observation's thread-local access list is reachable: through a static link of the
    /// Swift runtime (binderyd), or found in the loaded libswiftObservation.so's symbol table (a
    /// daemon or test bundle linked dynamically, as `swift build` links them).
    static var isLinked: Bool { bindery_observation_access_list_linked() != 0 }
    /// Whether it was found in the shared library's symbol table rather than linked statically.
    static var isFoundInSharedLibrary: Bool { bindery_observation_access_list_source() == 2 }

    /// Whether everything above works on this toolchain: checked once, on a probe model.
    static let isAvailable: Bool = {
        guard isLinked, MemoryLayout<ObservationTracking._AccessList>.size == MemoryLayout<Entries>.size,
              MemoryLayout<ObservationTracking._AccessList>.alignment == MemoryLayout<Entries>.alignment,
              MemoryLayout<ObservationTracking._AccessList?>.size == MemoryLayout<Entries?>.size else { return false }
        let probe = Probe()
        guard let accesses = accessList({ _ = probe.first }) else { return false }
        let entries = accesses.entries
        guard entries.count == 1, let (id, entry) = entries.first, id == ObjectIdentifier(entry.context),
              entry.properties == [\Probe.first as AnyKeyPath] else { return false }
        guard let both = accessList({ _ = probe.first; _ = probe.second }),
              let again = accessList({ _ = probe.first }) else { return false }
        let counter = Counter()
        let registration = LastingRegistration(accesses) { counter.count += 1 }
        guard registration.covers(again), !registration.covers(both) else { return false }
        // Read again into a list: what it holds is only looked up; something new grows it.
        var seed = again
        guard !seed.readAgain({ _ = probe.first }), seed.count == 1,
              seed.readAgain({ _ = probe.first; _ = probe.second }), seed.count == 2 else { return false }
        probe.first = 1
        probe.second = 1
        probe.first = 2
        registration.cancel()
        probe.first = 3
        return counter.count == 2
    }()
}

@Observable
private final class Probe: @unchecked Sendable {
    var first = 0
    var second = 0
}

private final class Counter: @unchecked Sendable {
    var count = 0
}
#endif
