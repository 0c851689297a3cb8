#if canImport(Glibc)
import Glibc
#endif

/// Matching whole byte strings in a frame without copying it (the splices scenario's checks).
extension Frame {
    func hasPrefix(_ head: [UInt8]) -> Bool {
        head.count <= count && head.withUnsafeBufferPointer { memcmp(base, $0.baseAddress!, $0.count) == 0 }
    }

    func hasSuffix(_ tail: [UInt8]) -> Bool {
        tail.count <= count && tail.withUnsafeBufferPointer { memcmp(base + count - $0.count, $0.baseAddress!, $0.count) == 0 }
    }

    /// How many times `needle` occurs (not overlapping), by memchr on its first byte.
    func occurrences(of needle: [UInt8]) -> Int {
        guard let first = needle.first else { return 0 }
        return needle.withUnsafeBufferPointer { needleBytes -> Int in
            var found = 0
            var offset = 0
            while offset + needleBytes.count <= count {
                guard let hit = memchr(base + offset, Int32(first), count - offset - needleBytes.count + 1) else { break }
                let position = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
                if memcmp(base + position, needleBytes.baseAddress!, needleBytes.count) == 0 {
                    found += 1
                    offset = position + needleBytes.count
                } else {
                    offset = position + 1
                }
            }
            return found
        }
    }
}
