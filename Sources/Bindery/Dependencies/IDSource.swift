/// Identifiers for new model objects: "1", "2", ... under `--deterministic`, random UUIDs otherwise.
@MainActor
public final class IDSource {
    private let random: RandomSource?
    private var counter = 0

    /// Sequential ids.
    public init() { random = nil }

    /// Random version-4 UUIDs, lowercase, drawn from `random`.
    public init(random: RandomSource) { self.random = random }

    public func next() -> String {
        guard let random else {
            counter += 1
            return String(counter)
        }
        return uuid(random.next(), random.next())
    }

    private func uuid(_ high: UInt64, _ low: UInt64) -> String {
        let high = (high & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000  // version 4
        let low = (low & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000    // variant 10
        let hex = hexDigits(high, 16) + hexDigits(low, 16)
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4),
                     hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    private func hexDigits(_ value: UInt64, _ count: Int) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: count - digits.count) + digits
    }
}
