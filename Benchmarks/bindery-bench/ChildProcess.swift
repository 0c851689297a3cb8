#if canImport(Glibc)
import Glibc
#endif

/// A child process spawned with `posix_spawn`, its stdin and stdout on pipes, stderr inherited.
final class ChildProcess {
    let pid: pid_t
    /// Our end of the child's stdin.
    private(set) var inputFD: Int32
    /// Our end of the child's stdout.
    let outputFD: Int32
    private var exitStatus: Int32?

    /// Spawns `prefix + [path] + arguments`.
    init(path: String, arguments: [String] = [], prefix: [String] = []) throws(BenchError) {
        guard access(path, X_OK) == 0 else {
            throw BenchError("cannot execute \(path): build it first (swift build -c release), or pass its path")
        }
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        guard pipe(&toChild) == 0, pipe(&fromChild) == 0 else { throw BenchError("pipe failed: errno \(errno)") }
        // Our ends must not leak into the child (or into children spawned later).
        for fd in [toChild[1], fromChild[0], toChild[0], fromChild[1]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)     // dup2 clears FD_CLOEXEC
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)

        let command = prefix + [path] + arguments
        var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }

        var pid: pid_t = 0
        let result = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
        close(toChild[0])
        close(fromChild[1])
        guard result == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw BenchError("posix_spawn \(command[0]) failed: \(String(cString: strerror(result)))")
        }
        self.pid = pid
        inputFD = toChild[1]
        outputFD = fromChild[0]
    }

    /// Closes the child's stdin: binderyd and rawpipe answer what they have read and exit 0.
    func closeInput() {
        if inputFD >= 0 { close(inputFD); inputFD = -1 }
    }

    /// Closes stdin and waits for the exit; returns the exit code (128 + signal when killed).
    @discardableResult
    func finish() -> Int32 {
        if let exitStatus { return exitStatus }
        closeInput()
        // Closing our read end too means a child with replies still unread cannot block on a full
        // pipe: its next write fails with EPIPE, and binderyd exits 0 on that.
        close(outputFD)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros Swift does not import.
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    func kill() {
        if exitStatus == nil { _ = Glibc.kill(pid, SIGKILL) }
    }

    deinit {
        if exitStatus == nil {
            kill()
            finish()
        }
    }

    /// The CPU time the child has used so far, in nanoseconds: the sum of its live threads' run
    /// times (/proc/PID/task/*/schedstat, in nanoseconds), else its user and system time from
    /// /proc/PID/stat (in clock ticks of 10 ms here, too coarse for a measurement of a few tens of
    /// ms). Threads that have ended are not in the sum; binderyd does its work on its main thread.
    func cpuNanoseconds() -> UInt64? {
        scheduledNanoseconds() ?? tickNanoseconds()
    }

    private func scheduledNanoseconds() -> UInt64? {
        guard let directory = opendir("/proc/\(pid)/task") else { return nil }
        defer { closedir(directory) }
        var total: UInt64 = 0
        var threads = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.first?.isNumber == true else { continue }
            // schedstat: time on the CPU (ns), time waiting to run (ns), time slices.
            guard let text = readTextFile("/proc/\(pid)/task/\(name)/schedstat"),
                  let first = text.split(separator: " ").first, let nanos = UInt64(first) else { continue }
            total += nanos
            threads += 1
        }
        return threads > 0 ? total : nil
    }

    private func tickNanoseconds() -> UInt64? {
        guard let text = readTextFile("/proc/\(pid)/stat"), let close = text.lastIndex(of: ")") else { return nil }
        // After the command name in parentheses: state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = UInt64(fields[11]), let system = UInt64(fields[12]) else { return nil }
        let ticks = UInt64(sysconf(Int32(_SC_CLK_TCK)))
        return (user + system) * 1_000_000_000 / max(ticks, 1)
    }

    /// A `kB` line of /proc/PID/status (VmRSS, VmHWM, ...), in bytes.
    func statusBytes(_ field: String) -> Int? {
        guard let line = statusLine(field) else { return nil }
        let digits = line.split(separator: " ").first { $0.allSatisfy(\.isNumber) }
        return digits.flatMap { Int($0) }.map { $0 * 1024 }
    }

    /// The value of a line of /proc/PID/status (for example Cpus_allowed_list), trimmed.
    func statusLine(_ field: String) -> String? {
        guard let text = readTextFile("/proc/\(pid)/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return String(line.dropFirst(field.count + 1).drop { $0 == " " || $0 == "\t" })
        }
        return nil
    }

    /// The CPUs each thread of the child may run on, e.g. "0" (one entry per distinct value).
    func threadAffinities() -> [String] {
        guard let directory = opendir("/proc/\(pid)/task") else { return [] }
        defer { closedir(directory) }
        var lists = Set<String>()
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true,
                  let text = readTextFile("/proc/\(pid)/task/\(name)/status") else { continue }
            for line in text.split(separator: "\n") where line.hasPrefix("Cpus_allowed_list:") {
                lists.insert(String(line.dropFirst("Cpus_allowed_list:".count).drop { $0 == " " || $0 == "\t" }))
            }
        }
        return lists.sorted()
    }
}

/// A whole small file (under /proc, say) as text.
func readTextFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(fd, &chunk, chunk.count)
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}
