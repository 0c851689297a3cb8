#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// The parent of a shared daemon that `--remote` (or a client library) starts: it runs
/// `binderyd --listen PATH …`, waits for it, and writes how it ended to `PATH.exit`
/// (`pid N: killed by signal 9` or `pid N: exited with code 0`), and to its log — so that a daemon
/// killed with `kill -9` or crashed is reported as what it was, by every client, though none of
/// them is its parent. Started as `binderyd --supervise-listen=PATH [daemon options]` (one word,
/// so that `--listen PATH` names the daemon alone); it exits with the daemon's status.
enum DaemonSupervisor {
    static let flag = "--supervise-listen="

    static func run(name: String, arguments: [String]) -> Never {
        let path = String(arguments[0].dropFirst(flag.count))
        let place = SocketPlace(path)
        var executable = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard readlink("/proc/self/exe", &executable, executable.count - 1) > 0 else {
            StandardStreams.log("\(name): error: cannot find this executable to supervise the daemon")
            exit(1)
        }
        // A client library starting the per-user daemon gives no --state: the default is added here.
        let options = Array(arguments.dropFirst())
        let argv: [UnsafeMutablePointer<CChar>?] = ([String(cString: executable), "--listen", place.path]
                                                     + options + place.defaultStateArguments(given: options))
            .map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0]!, nil, nil, argv, environ)
        guard spawned == 0 else {
            StandardStreams.log("\(name): error: cannot start the daemon: \(String(cString: strerror(spawned)))")
            exit(1)
        }
        // A Ctrl-C or SIGTERM meant for the daemon may reach its parent too: the daemon decides.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signaled = status & 0x7f
        let fate = signaled != 0 ? "killed by signal \(signaled)" : "exited with code \((status >> 8) & 0xff)"
        if signaled != 0 || (status >> 8) & 0xff != 0 {
            StandardStreams.log("\(name): error: the daemon (pid \(pid)) \(signaled != 0 ? "was " : "")\(fate)")
        }
        let record = "pid \(pid): \(fate)\n"
        let descriptor = open(place.exitPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor >= 0 {
            _ = Array(record.utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
        exit(signaled != 0 ? 128 + signaled : (status >> 8) & 0xff)
    }
}
