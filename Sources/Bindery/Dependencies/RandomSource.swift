import SeededRandom

/// Randomness, as a view model may use it: seeded under `--deterministic`, the system's otherwise.
@MainActor
public final class RandomSource {
    private var seeded: SplitMix64?
    private var system = SystemRandomNumberGenerator()

    /// The system's random numbers.
    public init() {}

    /// A repeatable sequence: the same seed gives the same numbers on every run and machine.
    public init(seed: UInt64) {
        seeded = SplitMix64(seed: seed)
    }

    public func int(in range: ClosedRange<Int>) -> Int {
        if seeded != nil { return Int.random(in: range, using: &seeded!) }
        return Int.random(in: range, using: &system)
    }

    public func int(in range: Range<Int>) -> Int {
        int(in: range.lowerBound...(range.upperBound - 1))
    }

    public func next() -> UInt64 {
        if seeded != nil { return seeded!.next() }
        return system.next()
    }
}
