extension JSONWriter {
    /// A growable byte buffer written through a raw pointer: it starts in caller-provided (stack)
    /// memory and moves to the heap only when that fills up. Written through `JSONWriter.bytes(_ write:)`.
    public struct Output: ~Copyable {
        private var start: UnsafeMutablePointer<UInt8>
        private var capacity: Int
        private var count = 0
        private var ownsStorage = false

        init(stack: UnsafeMutableBufferPointer<UInt8>) {
            start = stack.baseAddress!
            capacity = stack.count
        }

        deinit {
            if ownsStorage { start.deallocate() }
        }

        /// The bytes written so far; valid until the next write.
        var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

        /// How many bytes were written so far.
        var byteCount: Int { count }

        /// The bytes written since `offset` (a ``byteCount`` read before); valid until the next write.
        func bytesWritten(from offset: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: start + offset, count: count - offset)
        }

        // MARK: Bytes

        @inline(__always)
        private mutating func reserve(_ extra: Int) {
            if capacity - count < extra { grow(extra) }
        }

        private mutating func grow(_ extra: Int) {
            let newCapacity = max(capacity * 2, count + extra)
            let newStart = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            newStart.initialize(from: start, count: count)
            if ownsStorage { start.deallocate() }
            start = newStart
            capacity = newCapacity
            ownsStorage = true
        }

        @inline(__always)
        mutating func append(_ byte: UInt8) {
            reserve(1)
            start[count] = byte
            count += 1
        }

        @inline(__always)
        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard let source = bytes.baseAddress else { return }
            reserve(bytes.count)
            (start + count).initialize(from: source, count: bytes.count)
            count += bytes.count
        }

        /// Appends literal JSON text.
        @inline(__always)
        public mutating func append(_ text: StaticString) {
            append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
        }

        // MARK: Values

        /// Appends the compact serialization of `value`.
        public mutating func write(_ value: JSONValue) {
            switch value {
            case .null:
                append("null")
            case .bool(let flag):
                append(flag ? "true" : "false")
            case .int(let number):
                write(number)
            case .double(let number):
                write(number)
            case .string(let string):
                write(string)
            case .array(let elements):
                append(UInt8(ascii: "["))
                var first = true
                for element in elements {
                    if !first { append(UInt8(ascii: ",")) }
                    first = false
                    write(element)
                }
                append(UInt8(ascii: "]"))
            case .object(let object):
                write(object) { $0.write($1) }
            }
        }

        /// Appends `object`, each member's value written by `writeValue`.
        @inline(__always)
        mutating func write(_ object: JSONObject, values writeValue: (inout Self, JSONValue) -> Void) {
            append(UInt8(ascii: "{"))
            var first = true
            for member in object.members {
                if !first { append(UInt8(ascii: ",")) }
                first = false
                write(member.key)
                append(UInt8(ascii: ":"))
                writeValue(&self, member.value)
            }
            append(UInt8(ascii: "}"))
        }

        /// Writes the decimal digits right to left; `magnitude` makes `Int.min` safe.
        public mutating func write(_ number: Int) {
            reserve(20)
            if number < 0 {
                start[count] = UInt8(ascii: "-")
                count += 1
            }
            var remaining = number.magnitude
            var digits = 1
            var power: UInt = 10
            while digits < 20, remaining >= power {
                digits += 1
                power = power &* 10
            }
            var position = count + digits
            count = position
            repeat {
                let (quotient, digit) = remaining.quotientAndRemainder(dividingBy: 10)
                position -= 1
                start[position] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: digit)
                remaining = quotient
            } while remaining > 0
        }

        /// Swift's `description` is the shortest text that reads back as the same Double, and it is
        /// always valid JSON for finite values ("3.0", "0.1", "1e+20", "5e-324").
        private mutating func write(_ number: Double) {
            guard number.isFinite else {
                append("null")
                return
            }
            var text = number.description
            text.withUTF8 { append($0) }
        }

        // MARK: Strings

        mutating func write(_ string: String) {
            append(UInt8(ascii: "\""))
            let handled: Void? = string.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
            if handled == nil {
                var copy = string
                copy.withUTF8 { writeEscaped($0) }
            }
            append(UInt8(ascii: "\""))
        }

        /// Appends `utf8` with JSON escapes, copying the runs between escapes in one go.
        private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
            guard let base = utf8.baseAddress else { return }
            reserve(utf8.count + 1)
            var runStart = 0
            var seen: UInt64 = 0  // unused here; the parser needs it
            while true {
                let special = JSONStringScan.firstSpecialByte(
                    in: base, from: runStart, to: utf8.count, seen: &seen)
                append(UnsafeBufferPointer(start: base + runStart, count: special - runStart))
                guard special < utf8.count else { return }
                let byte = base[special]
                switch byte {
                case UInt8(ascii: "\""): append("\\\"")
                case UInt8(ascii: "\\"): append("\\\\")
                case 0x08: append("\\b")
                case 0x0C: append("\\f")
                case 0x0A: append("\\n")
                case 0x0D: append("\\r")
                case 0x09: append("\\t")
                default:
                    append("\\u00")
                    append(hexDigit(byte >> 4))
                    append(hexDigit(byte & 0x0F))
                }
                runStart = special + 1
            }
        }

        @inline(__always)
        private func hexDigit(_ nibble: UInt8) -> UInt8 {
            nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
        }
    }
}
