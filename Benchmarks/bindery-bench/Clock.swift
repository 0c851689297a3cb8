#if canImport(Glibc)
import Glibc
#endif

/// Monotonic time in nanoseconds (CLOCK_MONOTONIC).
@inline(__always) func monotonicNanos() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
}

/// Percentiles and extremes of a set of samples (nanoseconds), nearest-rank.
struct Distribution {
    let sorted: [UInt64]

    init(_ samples: [UInt64]) { sorted = samples.sorted() }

    var count: Int { sorted.count }

    /// The nearest-rank percentile `p` (0...100).
    func percentile(_ p: Double) -> UInt64 {
        guard !sorted.isEmpty else { return 0 }
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var median: UInt64 { percentile(50) }
    var maximum: UInt64 { sorted.last ?? 0 }
    var minimum: UInt64 { sorted.first ?? 0 }
    var mean: Double { sorted.isEmpty ? 0 : Double(sorted.reduce(0, &+)) / Double(sorted.count) }
}

/// `value` with `decimals` digits after the point, without Foundation.
func formatted(_ value: Double, _ decimals: Int = 1) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e18 else { return String(value) }
    let units = UInt64(scaled)
    let whole = units / UInt64(scale)
    var text = (value < 0 && units != 0 ? "-" : "") + String(whole)
    if decimals > 0 {
        let fraction = String(units % UInt64(scale))
        text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
    return text
}

/// An integer with thousands separators: 1000000 -> "1,000,000".
func grouped(_ value: Int) -> String {
    let digits = Array(String(abs(value)))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return (value < 0 ? "-" : "") + text
}
