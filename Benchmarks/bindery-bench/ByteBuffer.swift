#if canImport(Glibc)
import Glibc
#endif

/// A growable byte buffer with no copy-on-write and no reference counting per append: the client's
/// requests are encoded into one of these on the hot path.
final class ByteBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 4096) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @inline(__always) func removeAll() { count = 0 }

    @inline(__always) private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        larger.update(from: base, count: count)
        base.deallocate()
        base = larger
        capacity = newCapacity
    }

    @inline(__always) func append(_ bytes: StaticBytes) {
        reserve(bytes.count)
        memcpy(base + count, bytes.base, bytes.count)
        count += bytes.count
    }

    func append(_ bytes: [UInt8]) {
        reserve(bytes.count)
        bytes.withUnsafeBufferPointer { _ = memcpy(base + count, $0.baseAddress!, $0.count) }
        count += bytes.count
    }

    /// A non-negative integer in decimal.
    @inline(__always) func appendDecimal(_ value: Int) {
        let digits = decimalCount(value)
        reserve(digits)
        var rest = value
        var index = count + digits - 1
        repeat {
            base[index] = UInt8(truncatingIfNeeded: 0x30 + rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
        count += digits
    }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
}

/// Bytes that live for the whole run (templates of requests and of what the scanner matches).
struct StaticBytes: @unchecked Sendable {
    let base: UnsafePointer<UInt8>
    let count: Int

    init(_ text: String) {
        let pointer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(text.utf8.count, 1))
        _ = pointer.initialize(from: text.utf8)
        base = UnsafePointer(pointer.baseAddress!)
        count = text.utf8.count
    }
}

@inline(__always) func decimalCount(_ value: Int) -> Int {
    var count = 1
    var rest = value
    while rest >= 10 { rest /= 10; count += 1 }
    return count
}

/// Writes all of `buffer` to a blocking descriptor.
func writeAll(_ fd: Int32, _ buffer: ByteBuffer) throws(BenchError) {
    var offset = 0
    while offset < buffer.count {
        let written = write(fd, buffer.base + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR || errno == EAGAIN { continue }
            throw BenchError("write to the child failed: \(String(cString: strerror(errno)))")
        }
        offset += written
    }
}
