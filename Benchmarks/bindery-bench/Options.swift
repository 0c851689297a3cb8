#if canImport(Glibc)
import Glibc
#endif

/// The scenarios, in the order they run.
enum Scenario: String, CaseIterable {
    case client      // the client's own frame-scanning cost, no process at all
    case startup     // spawn to the initialize response
    case roundtrip   // one setField at a time
    case pipelined   // 64 setFields in flight
    case sessions    // 10,000 email sessions: time and RSS per session
    case fanout      // one addMovie save pushed to 1,000 movieList sessions
    case splices     // bytes and CPU per save to 100 movieLists over 1,000 to 100,000 movies
    case sharedFanout = "shared-fanout"  // one write to a keyed session, told to 100 attached clients
    case remote      // one client's round trip through binderyd --remote, beside stdio and the socket
}

/// The command line of `bindery-bench`.
struct Options {
    var daemonPath: String
    var rawpipePath: String
    var daemonPathIsDefault = true
    var rawpipePathIsDefault = true
    /// Build binderyd and rawpipe before measuring (when their default paths are used).
    var build = true
    var quick = false
    var only: Set<Scenario> = Set(Scenario.allCases)
    var requests: Int?
    var roundTrips: Int?
    var window = 64
    var cpu = 0
    /// Pin the pipelined, sessions and fan-out scenarios too (by default only the latency figures).
    var pinAll = false
    var startupRuns = 20
    var sessionCount = 10_000
    var fanoutSessions = 1_000
    /// `--shared-clients N`: clients attached to one session in the shared fan-out.
    var sharedClients = 100
    var fanoutRuns: Int?
    var spliceMovies: [Int]?
    var spliceLists = 100
    var spliceSaves: Int?
    /// Seconds any one scenario may take before the bench gives up (a hung daemon).
    var watchdogSeconds: UInt32 = 3600

    var pipelinedRequests: Int { requests ?? (quick ? 50_000 : 1_000_000) }
    var roundTripCount: Int { roundTrips ?? (quick ? 5_000 : 20_000) }
    var roundTripWarmup: Int { quick ? 500 : 2_000 }
    var fanoutRepetitions: Int { fanoutRuns ?? (quick ? 3 : 7) }
    var spliceStoreSizes: [Int] { spliceMovies ?? (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000]) }

    /// Saves measured per daemon. Without splices each save writes the whole list to every list,
    /// so fewer saves there: about 2 GB a daemon at most, and at least 2.
    func spliceSaveCount(movies: Int, splices: Bool) -> Int {
        let saves = spliceSaves ?? (quick ? 10 : 20)
        guard !splices, spliceSaves == nil else { return saves }
        let bytesPerSave = movieJSON(id: movies).utf8.count * movies * spliceLists
        return min(saves, max(2, 2_000_000_000 / max(bytesPerSave, 1)))
    }

    /// The CPU time the measured saves of one configuration must add up to (more fresh daemons
    /// until they do), so that the noise of one daemon's run averages out (and, where only 10 ms
    /// ticks can be read, their error is small); and the most daemons to that end.
    var spliceMinimumCPU: UInt64 { quick ? 100_000_000 : 300_000_000 }
    var spliceMaxDaemons: Int { quick ? 4 : 10 }

    static let usage = """
        usage: bindery-bench [options]

        Spawns the release binderyd (and the rawpipe baseline) as child processes over pipes and
        measures round-trip latency, pipelined throughput, start-up, per-session memory, fan-out and
        the bytes and CPU of a save with and without list splices.
        Prints a table and one machine-readable `BENCH name=... value=...` line per figure.

        options:
          --daemon PATH      the binderyd to measure (default: binderyd next to this executable,
                             built first with swift build --product binderyd, same scratch path)
          --rawpipe PATH     the baseline (default: rawpipe next to this executable, built likewise)
          --no-build         do not run `swift build` for the default binderyd and rawpipe first
          --quick            a short run: 50,000 pipelined requests, 5,000 round trips, 3 fan-outs
          --only NAME[,NAME] run only these scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))
          --requests N       pipelined requests (default 1,000,000; 50,000 with --quick)
          --roundtrips N     measured round trips (default 20,000; 5,000 with --quick)
          --window N         requests in flight when pipelined (default 64)
          --cpu N            the core the latency figures are pinned to (default 0)
          --pin-all          pin the pipelined, sessions and fan-out scenarios to that core too
          --startup-runs N   spawns per program for the start-up median (default 20)
          --sessions N       email sessions of the sessions scenario (default 10,000)
          --fanout-sessions N  movieList sessions of the fan-out scenario (default 1,000)
          --fanout-runs N    fan-outs, each on a fresh daemon (default 7; 3 with --quick)
          --splice-movies N[,N]  store sizes of the splices scenario (default 1000,10000,100000;
                             1000,10000 with --quick)
          --splice-lists N   movieLists open in the splices scenario (default 100)
          --splice-saves N   measured saves per daemon there (default 20, 10 with --quick; without
                             splices at most about 2 GB of output a daemon)
          --watchdog SECONDS give up on a scenario after this long (default 3600)
          -h, --help         print this help
        """

    static func parse(_ arguments: [String]) throws(BenchError) -> Options {
        let directory = executableDirectory()
        var options = Options(daemonPath: directory + "/binderyd", rawpipePath: directory + "/rawpipe")
        var rest = arguments[...]

        func value(_ flag: String) throws(BenchError) -> String {
            guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value") }
            return value
        }
        func count(_ flag: String, minimum: Int = 1) throws(BenchError) -> Int {
            let text = String(try value(flag).filter { $0 != "_" && $0 != "," })
            guard let number = Int(text), number >= minimum else {
                throw BenchError("\(flag) needs an integer >= \(minimum), not \"\(text)\"")
            }
            return number
        }

        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": throw BenchError.help
            case "--daemon":
                options.daemonPath = try value(argument)
                options.daemonPathIsDefault = false
            case "--rawpipe":
                options.rawpipePath = try value(argument)
                options.rawpipePathIsDefault = false
            case "--no-build": options.build = false
            case "--quick": options.quick = true
            case "--only":
                var chosen = Set<Scenario>()
                for name in try value(argument).split(separator: ",") {
                    guard let scenario = Scenario(rawValue: String(name)) else {
                        throw BenchError("unknown scenario \"\(name)\"; known: \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))")
                    }
                    chosen.insert(scenario)
                }
                options.only = chosen
            case "--requests": options.requests = try count(argument)
            case "--roundtrips": options.roundTrips = try count(argument)
            case "--window": options.window = try count(argument)
            case "--cpu": options.cpu = try count(argument, minimum: 0)
            case "--pin-all": options.pinAll = true
            case "--startup-runs": options.startupRuns = try count(argument)
            case "--sessions": options.sessionCount = try count(argument)
            case "--fanout-sessions": options.fanoutSessions = try count(argument)
            case "--shared-clients": options.sharedClients = try count(argument)
            case "--fanout-runs": options.fanoutRuns = try count(argument)
            case "--splice-movies":
                var sizes: [Int] = []
                for text in try value(argument).split(separator: ",") {
                    guard let size = Int(text.filter { $0 != "_" }), size >= 1 else {
                        throw BenchError("--splice-movies needs integers >= 1, not \"\(text)\"")
                    }
                    sizes.append(size)
                }
                options.spliceMovies = sizes
            case "--splice-lists": options.spliceLists = try count(argument)
            case "--splice-saves": options.spliceSaves = try count(argument)
            case "--watchdog": options.watchdogSeconds = UInt32(try count(argument))
            default: throw BenchError("unknown argument \"\(argument)\" (see --help)")
            }
        }
        return options
    }

    /// The directory of the running executable, from /proc/self/exe.
    static func executableDirectory() -> String {
        var path = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &path, path.count - 1)
        guard length > 0 else { return "." }
        let full = String(decoding: path[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard let slash = full.lastIndex(of: "/") else { return "." }
        return String(full[..<slash])
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
    static let help = BenchError("help")
}
