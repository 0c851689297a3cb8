/// The one Observation registration of a session: it covers the last read of every observed member.
///
/// Why one per session: registering is the expensive part of tracking (an access list, then a lock
/// and a dictionary entry per key path, per observable object touched), while re-reading a few
/// members is cheap. With one registration, a change costs one registration plus a re-read of the
/// observed members, whatever their number; one per member cost a registration per dirty member.
/// The price is precision: an output is re-read when anything the session observes changes, not
/// only its own inputs. What goes on the wire is the same: only differences are sent.
///
/// Why a beacon: a registration made with `withObservationTracking` ends only when something it
/// read changes; Observation's public API cannot cancel it. A session that closes, or re-reads
/// without a change having fired, would leave its registration in the model — and in any store it
/// shares with other sessions — until that store next changes. So every tracked read also reads a
/// small observable object of the session's own, and ``cancel()`` changes it: the registration fires,
/// and Observation removes it from every object it was registered with.
@MainActor
final class SessionTracking {
    private let beacon = Beacon()
    private let onChange: @MainActor () -> Void
    /// Whether a registration is installed and has not fired yet.
    private var isArmed = false
    /// Set while ``cancel()`` fires the registration on purpose, so that firing is not a change.
    private var isCancelling = false

    /// `onChange` is called, on the main actor, before the first change to anything read under
    /// ``track(_:)`` since; then the registration is spent until the next ``track(_:)``.
    init(onChange: @escaping @MainActor () -> Void) {
        self.onChange = onChange
    }

    /// Runs `reads`, replacing the registration with one for everything they touch.
    func track(_ reads: () -> Void) {
        cancel()
        isArmed = true
        withObservationTracking {
            _ = beacon.generation
            reads()
        } onChange: { [weak self] in
            runOnMainActor { self?.registrationFired() }
        }
    }

    /// Removes the registration, if one is installed, from everything it was registered with.
    func cancel() {
        guard isArmed else { return }
        isCancelling = true
        beacon.generation &+= 1
        isCancelling = false
    }

    private func registrationFired() {
        isArmed = false
        if !isCancelling { onChange() }
    }
}

/// What a session's registration always reads, so that changing it ends the registration.
@Observable
private final class Beacon {
    var generation = 0
}
