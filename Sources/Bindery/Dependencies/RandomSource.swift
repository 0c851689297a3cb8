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

/// SplitMix64: small, fast, and the same everywhere; good enough for fake weights and dice.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
