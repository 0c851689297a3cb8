#if canImport(Glibc)
import Glibc
#endif

/// How a shared daemon a client was connected to stands, seen from a process that is not its
/// parent: alive, ending, or gone — and, for one a supervisor started (``DaemonSupervisor``), how
/// it ended, from `PATH.exit`.
enum DaemonFate {
    /// Whether process `pid` is gone or on its way out: no such process, a zombie, or exiting
    /// (`PF_EXITING` in /proc/PID/stat's flags: its descriptors close before it is a zombie).
    static func isEnding(_ pid: pid_t) -> Bool {
        guard pid > 0, let file = fopen("/proc/\(pid)/stat", "r") else { return true }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 1024)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return true }
        let text = String(cString: buffer)
        guard let close = text.lastIndex(of: ")") else { return true }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is the state (3rd field), fields[6] the flags (9th field).
        guard fields.count > 6 else { return true }
        if fields[0] == "Z" || fields[0] == "X" || fields[0] == "x" { return true }
        let flags = UInt(fields[6]) ?? 0
        return flags & 0x4 != 0  // PF_EXITING
    }

    /// How the daemon `pid` ended, as its supervisor wrote it (`killed by signal 9`, `exited with
    /// code 0`), waiting up to `seconds` for the record; nil when none comes (a daemon started by
    /// hand has no supervisor).
    static func recorded(pid: pid_t, place: SocketPlace, waiting seconds: Double) -> (text: String, status: Int32)? {
        let prefix = "pid \(pid): "
        for _ in 0..<max(1, Int(seconds * 100)) {
            if let file = fopen(place.exitPath, "r") {
                var buffer = [CChar](repeating: 0, count: 256)
                let line = fgets(&buffer, Int32(buffer.count), file) != nil ? String(cString: buffer) : ""
                fclose(file)
                if line.hasPrefix(prefix) {
                    let text = String(line.dropFirst(prefix.count).dropLast())
                    let number = Int32(text.split(separator: " ").last ?? "") ?? 1
                    return (text, text.hasPrefix("killed") ? 128 + number : number)
                }
            }
            usleep(10_000)
        }
        return nil
    }
}
