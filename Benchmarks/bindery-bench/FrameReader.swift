#if canImport(Glibc)
import Glibc
#endif

/// The body of one frame, pointing into a ``FrameReader``'s buffer: valid until its next `fill()`.
struct Frame {
    let base: UnsafePointer<UInt8>
    let count: Int

    @inline(__always) subscript(index: Int) -> UInt8 { base[index] }

    var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }
    var text: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
    var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Whether the body contains `needle`.
    func contains(_ needle: [UInt8]) -> Bool { firstOffset(of: needle) != nil }

    /// The offset of the first occurrence of `needle` (memchr for its first byte, then memcmp;
    /// Glibc's memmem needs _GNU_SOURCE, which Swift's Glibc module does not define).
    func firstOffset(of needle: [UInt8]) -> Int? {
        guard let first = needle.first else { return 0 }
        return needle.withUnsafeBufferPointer { needleBytes -> Int? in
            var offset = 0
            while offset + needleBytes.count <= count {
                guard let hit = memchr(base + offset, Int32(first), count - offset - needleBytes.count + 1) else { return nil }
                let position = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                if memcmp(base + position, needleBytes.baseAddress!, needleBytes.count) == 0 { return position }
                offset = position + 1
            }
            return nil
        }
    }
}

/// Reads Content-Length frames from a file descriptor with plain `read` calls into one growing
/// buffer, and hands out bodies without copying them.
///
/// The header the daemon writes (`Content-Length: N\r\n\r\n`, nothing else) is matched with two
/// 8-byte loads; any other header block goes through a slower, general path (case-insensitive names,
/// extra headers, `\n\n`).
final class FrameReader {
    let fd: Int32
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var start = 0
    private var end = 0
    private(set) var bytesRead = 0
    private(set) var readCalls = 0

    init(fd: Int32, capacity: Int = 1 << 20) {
        self.fd = fd
        self.capacity = capacity
        buffer = .allocate(capacity: capacity)
    }

    /// A reader over bytes already in memory (no descriptor): for measuring the client alone.
    init(preloaded bytes: [UInt8]) {
        fd = -1
        capacity = max(bytes.count, 1)
        buffer = .allocate(capacity: capacity)
        bytes.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress!, count: bytes.count) }
        end = bytes.count
    }

    deinit { buffer.deallocate() }

    /// "Content-" and "Length: " as little-endian 8-byte words.
    private static let word1 = UInt64(littleEndianBytes: Array("Content-".utf8))
    private static let word2 = UInt64(littleEndianBytes: Array("Length: ".utf8))

    /// The next complete frame already buffered, or nil when more bytes are needed.
    @inline(__always)
    func next() throws(BenchError) -> Frame? {
        let available = end - start
        if available < 21 { return available == 0 ? nil : try nextSlow() }
        let head = UnsafeRawPointer(buffer + start)
        guard head.loadUnaligned(as: UInt64.self) == FrameReader.word1,
              head.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == FrameReader.word2 else {
            return try nextSlow()
        }
        let p = buffer + start
        var index = 16
        var length = 0
        while index < available, p[index] &- 0x30 < 10 {
            length = length &* 10 &+ Int(p[index] &- 0x30)
            index += 1
        }
        guard index + 4 <= available else { return nil }
        guard index > 16, p[index] == 0x0D, p[index + 1] == 0x0A, p[index + 2] == 0x0D, p[index + 3] == 0x0A else {
            return try nextSlow()
        }
        let bodyStart = index + 4
        guard available - bodyStart >= length else { return nil }
        start += bodyStart + length
        return Frame(base: UnsafePointer(p + bodyStart), count: length)
    }

    /// Any header block: lines up to an empty line, `Content-Length` case-insensitive.
    private func nextSlow() throws(BenchError) -> Frame? {
        let p = buffer + start
        let available = end - start
        var index = 0
        var lineStart = 0
        var length: Int?
        while index < available {
            guard p[index] == 0x0A else { index += 1; continue }
            var lineEnd = index
            if lineEnd > lineStart, p[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            if lineEnd == lineStart {   // the blank line
                guard let length else {
                    throw BenchError("a header block without Content-Length: \(String(decoding: UnsafeBufferPointer(start: p, count: index), as: UTF8.self).debugDescription)")
                }
                let bodyStart = index + 1
                guard available - bodyStart >= length else { return nil }
                start += bodyStart + length
                return Frame(base: UnsafePointer(p + bodyStart), count: length)
            }
            let line = String(decoding: UnsafeBufferPointer(start: p + lineStart, count: lineEnd - lineStart), as: UTF8.self)
            if let colon = line.firstIndex(of: ":") {
                if line[..<colon].lowercased() == "content-length" {
                    let value = line[line.index(after: colon)...].trimmingSpaces
                    guard let number = Int(value), number >= 0 else {
                        throw BenchError("bad Content-Length header: \(line.debugDescription)")
                    }
                    length = number
                }
            } else {
                throw BenchError("not a header line: \(line.debugDescription)")
            }
            index += 1
            lineStart = index
        }
        if available > 64 * 1024 { throw BenchError("64 KB without the end of a header block") }
        return nil
    }

    /// One `read` (blocking). False at end of input. Invalidates every ``Frame`` handed out.
    func fill() throws(BenchError) -> Bool {
        if start == end {
            start = 0
            end = 0
        } else if capacity - end < 64 * 1024 {
            if start > 0 {
                memmove(buffer, buffer + start, end - start)
                end -= start
                start = 0
            }
            if capacity - end < 64 * 1024 {
                let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                larger.update(from: buffer, count: end)
                buffer.deallocate()
                buffer = larger
                capacity *= 2
            }
        }
        while true {
            let count = read(fd, buffer + end, capacity - end)
            if count < 0 {
                if errno == EINTR { continue }
                throw BenchError("read failed: \(String(cString: strerror(errno)))")
            }
            readCalls += 1
            end += count
            bytesRead += count
            return count > 0
        }
    }

    /// Blocks until a whole frame is there.
    func nextFrame() throws(BenchError) -> Frame {
        while true {
            if let frame = try next() { return frame }
            guard try fill() else { throw BenchError("the child closed its output (it exited?)") }
        }
    }

    /// Whether bytes are buffered that are not yet a whole frame.
    var hasPartialData: Bool { end > start }
}

/// Writes all of `bytes` to a blocking descriptor.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws(BenchError) {
    let failure: Int32? = bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
    if let failure { throw BenchError("write to the child failed: \(String(cString: strerror(failure)))") }
}

extension UInt64 {
    /// The first 8 bytes as a little-endian word.
    init(littleEndianBytes bytes: [UInt8]) {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        self = value
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
