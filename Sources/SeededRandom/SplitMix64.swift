/// SplitMix64 (Steele, Lea and Flood, 2014): a tiny generator with a full period, the same numbers
/// on every machine for a seed. Bindery's deterministic random source, the property tests and the
/// fuzzers all draw from this one copy.
///
/// ```swift
/// var random = SplitMix64(seed: 1)
/// random.below(100)  // 56
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in 0..<bound, by modulo (0 when bound ≤ 1): cheap, slightly biased, fine for tests.
    public mutating func below(_ bound: Int) -> Int { bound <= 1 ? 0 : Int(next() % UInt64(bound)) }
    public mutating func bool() -> Bool { next() & 1 == 0 }
    public mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }
}
