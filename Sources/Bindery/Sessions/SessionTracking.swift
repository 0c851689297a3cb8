/// The one Observation registration of a session: it covers the last read of every observed member.
///
/// Why one per session: registering is the expensive part of tracking (an access list, then a lock
/// and a dictionary entry per key path, per observable object touched), while re-reading a few
/// members is cheap. With one registration, a change costs one registration plus a re-read of the
/// observed members, whatever their number; one per member cost a registration per dirty member.
/// The price is precision: an output is re-read when anything the session observes changes, not
/// only its own inputs. What goes on the wire is the same: only differences are sent.
///
/// Cancelling. A registration made with `withObservationTracking` ends only when something it read
/// changes; Observation's public API cannot cancel it. Most sessions never need to: their
/// registration lives in their own model and goes with it when the session closes. Those that do —
/// a closing session whose reads reach an object that outlives its model (a store other sessions
/// share), or one that must register again before the old registration fired (`session/observe`) —
/// read a small observable object of their own in every registration, a beacon, and ``cancel()``
/// changes it: the registration fires, and Observation removes it from every object it was
/// registered with. A beacon costs about a third of a change's tracking time and 800 bytes, so a
/// session starts without one (unless its type is known to need it) and takes one when it must.
///
/// Writes from other threads. A view model that is not isolated to the main actor may be written
/// from any thread; Observation then calls the registration on the writer's thread. The request
/// scope the writer runs under (a task of a command inherits it) is taken there and handed to the
/// main actor with the change. And because a registration is installed only after the reads it
/// covers, a write from another thread between a read and the installation would be seen by
/// neither: so whenever ``track(_:)`` installs a registration for something the last one did not
/// cover, it says so, and the session reads again and compares (``Session``'s `rearm`). With the
/// lasting registration that is rare (a read that touched something new); with the public one,
/// every change.
@MainActor
final class SessionTracking {
    private var beacon: Beacon?
    #if !BINDERY_PUBLIC_OBSERVATION_ONLY
    /// The lasting registration, when ``usesLastingRegistration``.
    private var lasting: LastingRegistration?
    /// The accesses ``lasting`` was made for, in a list of this tracking's own, read into again by
    /// the next read (see ``trackLasting(_:)``); nil when the next read takes a fresh list.
    private var seed: LastingRegistration.Accesses?
    static let readsBetweenFreshLists: UInt8 = 64
    #endif
    private let onChange: @MainActor (RequestScope?) -> Void
    /// Set when the session that owns this tracking is gone: `onChange` must not be called then.
    nonisolated(unsafe) var ownerIsGone = false
    /// Whether a registration is installed and has not fired since the last ``track(_:)``.
    private(set) var isArmed = false
    /// Set while ``cancel()`` fires the registration on purpose, so that firing is not a change.
    private var isCancelling = false
    // Small, and next to the flags above: a tracking is one per session, and these kept it
    // within the same allocation size.
    /// Reads into ``seed`` since the last fresh list.
    private var readsOfSeed: UInt8 = 0
    /// Whether a read after a change found the registration still covering it before.
    private var changedBefore = false
    /// The number of the current registration: one replaced without being cancelled may still
    /// fire, once, and is then ignored.
    private var registration = 0
    /// Whether a registration was replaced without being cancelled (it may still be registered).
    private(set) var leftARegistrationBehind = false

    /// `onChange` is called, on the main actor, before the first change to anything read under
    /// ``track(_:)`` since; then the registration is spent until the next ``track(_:)``. With
    /// `cancellable`, every registration carries a beacon from the start.
    init(cancellable: Bool, onChange: @escaping @MainActor (_ cause: RequestScope?) -> Void) {
        self.onChange = onChange
        if cancellable { beacon = Beacon() }
    }

    /// Whether ``cancel()`` can remove the current registration.
    var isCancellable: Bool {
        #if !BINDERY_PUBLIC_OBSERVATION_ONLY
        if Self.usesLastingRegistration { return true }
        #endif
        return beacon != nil
    }

    /// Runs `reads`, replacing the registration with one for everything they touch. A registration
    /// still armed that cannot be cancelled stays until what it read changes (then it is ignored),
    /// and from now on registrations carry a beacon: so that happens at most once per session.
    /// With a lasting registration, the registration is kept when the reads touched exactly what
    /// it covers, and replaced otherwise.
    /// Returns whether it installed a registration covering something the last one did not: a write
    /// from another thread between those reads and the installation would then be unseen, so the
    /// caller reads again and compares.
    @discardableResult
    func track(_ reads: () -> Void) -> Bool {
        #if !BINDERY_PUBLIC_OBSERVATION_ONLY
        if Self.usesLastingRegistration { return trackLasting(reads) }
        #endif
        if isArmed {
            if beacon == nil {
                beacon = Beacon()
                leftARegistrationBehind = true
            } else {
                cancel()
            }
        }
        registration &+= 1
        let number = registration
        isArmed = true
        // The registration holds this tracking strongly: the session table can then tell, once the
        // session is gone, whether a registration outlived its model (see SessionTable).
        withObservationTracking {
            if let beacon { _ = beacon.generation }
            reads()
        } onChange: { [self] in
            changed(number)
        }
        return true
    }

    /// A registration fired, on the writer's thread: tell the main actor, with the writer's cause.
    private nonisolated func changed(_ number: Int) {
        if MainThread.isCurrent {
            // Where view models change: told at once, and without a closure made per change.
            Self.fireOnMainThread(self, number, ChangeCause.scope)
        } else {
            // The writer's thread: its cause now, before the hop loses it.
            let cause = ChangeCause.scope
            runOnMainActor {
                self.registrationFired(number, cause: cause)
            }
        }
    }

    /// ``registrationFired(_:cause:)`` called from a nonisolated context that checked it runs on the
    /// main thread (`runOnMainActor` would allocate a closure for every change).
    nonisolated(unsafe) private static let fireOnMainThread = unsafeBitCast(
        { @MainActor (tracking: SessionTracking, number: Int, cause: RequestScope?) in tracking.registrationFired(number, cause: cause) },
        to: ((SessionTracking, Int, RequestScope?) -> Void).self)

    /// Whether sessions hold a lasting registration (Observation's SPI, see ``LastingRegistration``)
    /// rather than the public one-shot one: true unless the toolchain lacks what it relies on, or
    /// the build says `-DBINDERY_PUBLIC_OBSERVATION_ONLY`.
    nonisolated static let usesLastingRegistration: Bool = {
        #if BINDERY_PUBLIC_OBSERVATION_ONLY
        false
        #else
        LastingRegistration.isAvailable
        #endif
    }()

    #if !BINDERY_PUBLIC_OBSERVATION_ONLY
    private func trackLasting(_ reads: () -> Void) -> Bool {
        isArmed = true
        // Most reads touch what the last one did: read into its list again, which costs lookups
        // only. A read that touched something new is registered with all the list holds: what
        // this read touched, and what earlier ones did that it may not have — more than needed,
        // which costs a re-read when one of those changes but misses no change. Every so often a
        // fresh list instead, so what is no longer read (a removed row's registrar) is let go.
        if var seed = seed.take(), readsOfSeed < Self.readsBetweenFreshLists {
            readsOfSeed += 1
            guard seed.readAgain(reads) else {
                self.seed = seed
                return false
            }
            register(seed)
            return true
        }
        readsOfSeed = 0
        let accesses = LastingRegistration.accessList(reads)
        // Asked in place: binding `lasting` would copy it (two retains and releases per change).
        if let accesses, lasting?.covers(accesses) == true {
            // Kept from a session's second change on: the list costs about 250 bytes, which a
            // session that changes once (or never) does not pay.
            if changedBefore { seed = accesses } else { changedBefore = true }
            return false
        }
        register(accesses)
        return true
    }

    /// Replaces the registration with one for `accesses` (none for nil).
    private func register(_ accesses: LastingRegistration.Accesses?) {
        // Installed before the old one goes, so a write from another thread to what both cover
        // between the two is seen by one of them (what only the new one covers: see track(_:)).
        registration &+= 1
        let number = registration
        let old = lasting
        lasting = accesses.map { LastingRegistration($0) { [self] in changed(number) } }
        old?.cancel()
    }
    #endif
    /// Removes the registration, if one is installed and carries a beacon, from everything it was
    /// registered with; false when one is installed that cannot be removed.
    @discardableResult
    func cancel() -> Bool {
        #if !BINDERY_PUBLIC_OBSERVATION_ONLY
        if Self.usesLastingRegistration {
            lasting?.cancel()
            lasting = nil
            seed = nil
            registration &+= 1  // a firing already on its way to the main actor is ignored
            isArmed = false
            return true
        }
        #endif
        guard isArmed else { return true }
        guard let beacon else { return false }
        isCancelling = true
        beacon.generation &+= 1
        isCancelling = false
        return true
    }

    private func registrationFired(_ number: Int, cause: RequestScope?) {
        // Replaced without being cancelled; or (lasting) already told since the last reads.
        guard number == registration, isArmed else { return }
        isArmed = false
        if !isCancelling, !ownerIsGone { onChange(cause) }
    }
}

/// How this process's sessions follow their models, as a daemon's `--version` reports it.
public enum ChangeTracking {
    public static var mechanism: String {
        guard SessionTracking.usesLastingRegistration else {
            return "observation: withObservationTracking (public API: a registration and a second read per change)"
        }
        #if !BINDERY_PUBLIC_OBSERVATION_ONLY
        if LastingRegistration.isFoundInSharedLibrary {
            return "observation: lasting registration (Observation's SPI; its access list found in libswiftObservation.so)"
        }
        #endif
        return "observation: lasting registration (Observation's SPI)"
    }
}

/// What a cancellable registration always reads, so that changing it ends the registration.
@Observable
private final class Beacon {
    var generation = 0
}
