import SeededRandom
import Testing
import JSONRPC

/// Seeded randomized tests of the framing and JSON layers. Deterministic: case `n` always uses seed `n`,
/// and a failure names its seed and the smallest failing piece found, so it can be replayed alone.
@Suite struct PropertyTests {
    /// A stream of several valid messages, framed either way (with the blank lines clients put between
    /// frames), decodes to the same frames whether it arrives whole or cut at random points, down to
    /// one byte at a time.
    @Test func anySplitDecodesToTheSameFrames() {
        for seed in UInt64(0)..<1000 {
            var rng = SplitMix64(seed: seed)
            let framing: Framing = rng.bool() ? .contentLength : .newlineDelimited
            let bodies = (0...rng.int(5)).map { _ in JSONWriter.bytes(rng.message()) }
            var stream: [UInt8] = []
            for body in bodies {
                framing.frame(body, into: &stream)
                if rng.int(4) == 0 { stream += rng.pick([[0x0A], [0x0D, 0x0A], [0x20, 0x0A]]) }
            }
            let cuts = seed % 50 == 0 ? Array(1..<stream.count) : rng.cuts(in: stream.count)
            let expected = bodies.map(FrameEvent.frame)
            let whole = decode(stream, cuts: [])
            let split = decode(stream, cuts: cuts)
            #expect(whole == expected && split == expected, """
                seed \(seed): \(framing), \(bodies.count) bodies, \(stream.count) bytes, cuts \(cuts)
                first differing frame: whole \(firstDifference(whole, expected)), split \(firstDifference(split, expected))
                """)
            if whole != expected || split != expected { break }
        }
    }

    /// JSONWriter then JSONParser is the identity on finite JSON values: random trees up to depth 6
    /// (strings with escapes, control characters, BMP and astral characters; Int.min and Int.max; finite
    /// doubles including -0.0 and subnormals; objects with distinct keys). Writing the parsed value
    /// again gives the same bytes, which also tells -0.0 from 0.0 and catches a double off by one ulp.
    @Test func writeThenParseIsTheIdentity() {
        for seed in UInt64(0)..<2000 {
            var rng = SplitMix64(seed: seed)
            let value = rng.value(depth: 6)
            guard !roundTrips(value) else { continue }
            let culprit = smallestFailingPart(of: value)
            let written = JSONWriter.bytes(culprit)
            let parsed = (try? JSONParser.parse(written)).map { escape(JSONWriter.bytes($0)[...]) } ?? "a parse error"
            Issue.record("seed \(seed): \(escape(written[...])) round-trips as \(parsed)")
            break
        }
    }

    /// Random bytes, and garbage between valid frames, never crash FrameDecoder or wedge it: fed in
    /// random chunks with any maximum message size, it yields at most one event per byte fed (each
    /// event consumes input, so draining terminates). With newline-delimited framing, garbage lines
    /// cost no valid message.
    @Test func garbageNeverWedgesTheDecoder() {
        for seed in UInt64(0)..<1000 {
            var rng = SplitMix64(seed: seed)
            let maximumMessageSize = rng.pick([64 << 20, 256, 16, 1])
            let framing: Framing = rng.bool() ? .contentLength : .newlineDelimited
            var stream: [UInt8] = []
            var bodies: [[UInt8]] = []
            for _ in 0...rng.int(6) {
                if rng.bool() {
                    bodies.append(JSONWriter.bytes(rng.message()))
                    framing.frame(bodies.last!, into: &stream)
                } else {
                    stream += rng.garbage()
                    if framing == .newlineDelimited { stream.append(0x0A) }
                }
            }
            var decoder = FrameDecoder(maximumMessageSize: maximumMessageSize)
            var events: [FrameEvent] = []
            var wedged = false
            var previous = 0
            for cut in rng.cuts(in: stream.count) + [stream.count] where !wedged {
                decoder.append(Array(stream[previous..<cut]))
                previous = cut
                while let event = decoder.next() {
                    events.append(event)
                    if events.count > cut { wedged = true; break }  // more events than bytes fed so far
                }
            }
            if let last = decoder.finish() { events.append(last) }
            let context = "seed \(seed): \(framing), max \(maximumMessageSize), stream \(escape(stream.prefix(120)))"
            #expect(!wedged && events.count <= stream.count, "\(context): \(events.count) events from \(stream.count) bytes")
            #expect(decoder.next() == nil && decoder.finish() == nil, "\(context): events after finish()")
            let first = stream.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }
            if framing == .newlineDelimited, maximumMessageSize == 64 << 20, first == 0x7B || first == 0x5B {
                let frames = events.compactMap { if case .frame(let bytes) = $0 { bytes } else { nil } }
                #expect(bodies.allSatisfy(frames.contains), "\(context): a valid message was lost")
            }
            if wedged || events.count > stream.count { break }
        }
    }

    // MARK: - Helpers

    func decode(_ stream: [UInt8], cuts: [Int]) -> [FrameEvent] {
        var decoder = FrameDecoder()
        var events: [FrameEvent] = []
        var previous = 0
        for cut in cuts + [stream.count] {
            decoder.append(Array(stream[previous..<cut]))
            previous = cut
            while events.count <= stream.count, let event = decoder.next() { events.append(event) }
        }
        if let last = decoder.finish() { events.append(last) }
        return events
    }

    func firstDifference(_ events: [FrameEvent], _ expected: [FrameEvent]) -> String {
        let common = min(events.count, expected.count)
        let index = (0..<common).first { events[$0] != expected[$0] } ?? common
        guard index < max(events.count, expected.count) else { return "none" }
        guard index < events.count else { return "#\(index) missing" }
        switch events[index] {
        case .frame(let bytes): return "#\(index) frame \(escape(bytes.prefix(80)))"
        case .error(let message): return "#\(index) error \(message)"
        }
    }

    func roundTrips(_ value: JSONValue) -> Bool {
        let bytes = JSONWriter.bytes(value)
        guard let parsed = try? JSONParser.parse(bytes) else { return false }
        return parsed == value && JSONWriter.bytes(parsed) == bytes
    }

    /// A failing value's first failing element or member, recursively: the minimal case to report.
    func smallestFailingPart(of value: JSONValue) -> JSONValue {
        let parts: [JSONValue] = switch value {
        case .array(let elements): elements
        case .object(let object) where object.count == 1: [object.members[0].value]
        case .object(let object): object.members.map { .object(JSONObject([$0])) }  // one member each
        default: []
        }
        return parts.first { !roundTrips($0) }.map(smallestFailingPart) ?? value
    }

    func escape(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.map { (0x20..<0x7F).contains($0) ? String(UnicodeScalar($0)) : "\\x" + String(0x100 + Int($0), radix: 16).dropFirst() }.joined()
    }
}

/// The property tests' draws, on the shared SplitMix64.
private extension SplitMix64 {
    mutating func int(_ bound: Int) -> Int { below(bound) }

    /// Sorted distinct cut points strictly inside 0..<count.
    mutating func cuts(in count: Int) -> [Int] {
        guard count > 1 else { return [] }
        return Set((0..<int(min(count, 24))).map { _ in 1 + int(count - 1) }).sorted()
    }

    mutating func string() -> String {
        let pools: [[UnicodeScalar]] = [
            Array("abcXYZ 019_-.:".unicodeScalars), ["\"", "\\", "/"],
            (0..<0x20).map { UnicodeScalar(UInt8($0)) } + ["\u{7F}"],
            ["é", "€", "中", "\u{2028}", "\u{FEFF}", "\u{FFFF}"], ["😀", "\u{10000}", "\u{10FFFF}", "𝄞"],
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<int(12) { scalars.append(pick(pick(pools))) }
        return String(scalars)
    }

    mutating func double() -> Double {
        switch int(4) {
        case 0: return pick([0.0, -0.0, 0.1, 1.5, 1e22, 1e23, 5e-324, 2.2250738585072014e-308, .greatestFiniteMagnitude, -9007199254740993])
        case 1: return Double(Int64(bitPattern: next())) / Double(1 << int(60))
        default:
            let number = Double(bitPattern: next())
            return number.isFinite ? number : 1.0
        }
    }

    /// A random JSON value; containers only while `depth` lasts.
    mutating func value(depth: Int) -> JSONValue {
        switch int(depth > 0 ? 8 : 6) {
        case 0: return pick([.null, .bool(true), .bool(false)])
        case 1: return .int(pick([Int.min, Int.max, 0, -1, Int(Int32.max)]))
        case 2: return .int(Int(bitPattern: UInt(next())) >> int(64))
        case 3: return .double(double())
        case 4, 5: return .string(string())
        case 6: return .array((0..<int(5)).map { _ in value(depth: depth - 1) })
        default:
            var object = JSONObject()
            for _ in 0..<int(5) {
                let key = string()
                if object[key] == nil { object.append(key, value(depth: depth - 1)) }
            }
            return .object(object)
        }
    }

    /// A JSON-RPC request or notification, or now and then a batch of them.
    mutating func message() -> JSONValue {
        func one(_ rng: inout SplitMix64) -> JSONValue {
            var object: JSONObject = ["jsonrpc": "2.0", "method": .string(rng.string())]
            if rng.bool() { object.append("id", .int(rng.int(1000))) }
            object.append("params", rng.value(depth: 3))
            return .object(object)
        }
        return int(5) == 0 ? .array((0...int(3)).map { _ in one(&self) }) : one(&self)
    }

    /// Random bytes, or a fragment of framing that is likely to confuse a decoder.
    mutating func garbage() -> [UInt8] {
        if bool() { return (0..<int(40)).map { _ in UInt8(truncatingIfNeeded: next()) } }
        return Array(pick(["Content-Length: 5\r\n", "\r\n\r\n", "Content-Length: 99999999\r\n\r\n", "{\"a\":", "]]",
                           "content-length: x\n\n", "Content-Length: 3\r\nContent-Length: 4\r\n\r\n", "\u{0}\u{1}"]).utf8)
    }
}
