#if canImport(Glibc)
import Glibc
#endif

/// CPU pinning for the latency figures.
///
/// Swift's Glibc module does not export `sched_setaffinity` (it needs `_GNU_SOURCE`), so it is looked
/// up with `dlsym`. The bench pins its own (only) thread, then spawns: a child inherits the mask of
/// the thread that spawned it, and the daemon's threads inherit it from its main thread. When the
/// symbol is missing, the child is started under `taskset -c N` instead, and the bench stays unpinned.
enum Pinning {
    case affinity(cpu: Int)
    case taskset(cpu: Int, path: String)
    case unpinned

    private typealias AffinityFunction = @convention(c) (pid_t, Int, UnsafeMutableRawPointer?) -> Int32
    private static let functions: (get: AffinityFunction, set: AffinityFunction)? = {
        let handle = dlopen(nil, RTLD_NOW)
        guard let get = dlsym(handle, "sched_getaffinity"), let set = dlsym(handle, "sched_setaffinity") else {
            return nil
        }
        return (unsafeBitCast(get, to: AffinityFunction.self), unsafeBitCast(set, to: AffinityFunction.self))
    }()

    /// 1024 CPUs, like glibc's cpu_set_t.
    private static let maskWords = 16

    /// The best pinning available on this machine.
    static func best(cpu: Int) -> Pinning {
        if functions != nil { return .affinity(cpu: cpu) }
        if let taskset = searchPath("taskset") { return .taskset(cpu: cpu, path: taskset) }
        return .unpinned
    }

    /// Runs `body` pinned: with `.affinity`, this thread is on `cpu` until `body` returns.
    func run<T>(_ body: () throws(BenchError) -> T) throws(BenchError) -> T {
        guard case .affinity(let cpu) = self, let functions = Pinning.functions else { return try body() }
        var saved = [UInt64](repeating: 0, count: Pinning.maskWords)
        guard functions.get(0, saved.count * 8, &saved) == 0 else { throw BenchError("sched_getaffinity failed: errno \(errno)") }
        var mask = [UInt64](repeating: 0, count: Pinning.maskWords)
        mask[cpu / 64] = 1 << UInt64(cpu % 64)
        guard functions.set(0, mask.count * 8, &mask) == 0 else {
            throw BenchError("sched_setaffinity to CPU \(cpu) failed: errno \(errno)")
        }
        defer { _ = functions.set(0, saved.count * 8, &saved) }
        return try body()
    }

    /// What to put before the program's path when spawning.
    var commandPrefix: [String] {
        if case .taskset(let cpu, let path) = self { return [path, "-c", String(cpu)] }
        return []
    }

    var description: String {
        switch self {
        case .affinity(let cpu): "sched_setaffinity: bench and child on CPU \(cpu)"
        case .taskset(let cpu, _): "taskset -c \(cpu) for the child (bench unpinned)"
        case .unpinned: "not pinned (neither sched_setaffinity nor taskset available)"
        }
    }

    /// An executable named `name` on $PATH.
    static func searchPath(_ name: String) -> String? {
        guard let path = getenv("PATH") else { return nil }
        for directory in String(cString: path).split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }
}
