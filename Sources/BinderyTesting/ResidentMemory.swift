#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's resident memory, for leak tests: open and close a view model many times, and
/// check that it stays where it was (as Bindery's own session-lifetime tests do). Linux only (from
/// `/proc/self/statm`); 0 where that file is missing.
public enum ResidentMemory {
    /// The resident set size in bytes (statm's second field, in pages).
    public static var bytes: Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 128)
        guard fgets(&line, Int32(line.count), file) != nil else { return 0 }
        let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
