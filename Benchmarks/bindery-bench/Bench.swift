#if canImport(Glibc)
import Glibc
#endif

/// Runs the chosen scenarios in order and fills the report.
struct Bench {
    let options: Options
    var report = Report()

    init(options: Options) { self.options = options }

    /// Runs one scenario under the watchdog; a failure is reported and the others still run.
    mutating func scenario(_ scenario: Scenario, _ body: (inout Report) throws(BenchError) -> Void) {
        guard options.only.contains(scenario) else { return }
        progress("== \(scenario.rawValue)")
        alarm(options.watchdogSeconds)   // SIGALRM ends the bench if a child hangs
        defer { alarm(0) }
        do {
            try body(&report)
        } catch {
            progress("   FAILED: \(error)")
            report.failures.append("\(scenario.rawValue): \(error)")
        }
    }

    mutating func run() -> Int32 {
        let pinning = Pinning.best(cpu: options.cpu)
        /// The pinning of the throughput scenarios: none unless --pin-all.
        let throughputPinning = options.pinAll ? pinning : .unpinned
        let window = options.window
        let options = self.options
        do {
            try buildDefaultPrograms(options: options)
        } catch {
            progress("bindery-bench: \(error)")
            return 2
        }
        for line in machineDescription() { print(line) }
        print("binderyd: \(options.daemonPath) (\(versionLine(of: options.daemonPath)))")
        print("rawpipe:  \(options.rawpipePath)")
        print("pinning for start-up and round trip: \(pinning.description); " +
              (options.pinAll ? "the other scenarios likewise (--pin-all)" : "other scenarios unpinned"))
        print("")

        scenario(.client) { report throws(BenchError) in
            let result = try measureClientCost(requests: min(options.pipelinedRequests, 200_000), window: window)
            let perRequest = { (nanos: UInt64) in formatted(Double(nanos) / Double(result.requests), 1) }
            progress("   client alone: \(formatted(result.nanosecondsPerRequest, 1)) ns per request (encode \(perRequest(result.encodeNanoseconds)) ns + scan and check 2 frames \(perRequest(result.scanNanoseconds)) ns)")
            report.add(Figure(name: "client_only_rps", label: "client alone, no I/O", unit: "req/s", decimals: 0,
                              value: result.requestsPerSecond, extra: [("ns_per_request", formatted(result.nanosecondsPerRequest, 1)),
                                      ("encode_ns", perRequest(result.encodeNanoseconds)), ("scan_check_ns", perRequest(result.scanNanoseconds)),
                                      ("requests", String(result.requests))], inTable: false))
            report.notes.append("client alone (no I/O): \(formatted(result.requestsPerSecond, 0)) req/s, \(formatted(result.nanosecondsPerRequest, 0)) ns per request to encode it and scan and check its didChange and response")
        }

        scenario(.startup) { report throws(BenchError) in
            let result = try measureStartup(options: options, pinning: pinning)
            let ms = { (nanos: UInt64) in Double(nanos) / 1e6 }
            progress("   binderyd median \(formatted(ms(result.daemon.median), 2)) ms, rawpipe \(formatted(ms(result.rawpipe.median), 2)) ms; daemon threads on CPUs \(result.daemonAffinity)")
            report.add(Figure(name: "startup_median_ms", label: "start-up median of \(options.startupRuns)", unit: "ms", decimals: 2,
                              value: ms(result.daemon.median), rawpipe: ms(result.rawpipe.median), target: .below(3),
                              extra: [("min", formatted(ms(result.daemon.minimum), 2)), ("max", formatted(ms(result.daemon.maximum), 2)),
                                      ("runs", String(options.startupRuns)), ("pinned", pinning.token)]))
            report.notes.append("start-up: daemon threads' Cpus_allowed_list during a run: \(result.daemonAffinity.joined(separator: " / "))")
        }

        scenario(.roundtrip) { report throws(BenchError) in
            let count = options.roundTripCount
            let warmup = options.roundTripWarmup
            // rawpipe runs before and after binderyd and its samples are pooled, so that drift
            // during the run weighs on the baseline as on the daemon.
            progress("   rawpipe: \(count) round trips (+\(warmup) warm-up)")
            let before = try measureRoundTrip(path: options.rawpipePath, count: count, warmup: warmup, pinning: pinning)
            progress("   binderyd: \(count) round trips (+\(warmup) warm-up)")
            let daemon = try measureRoundTrip(path: options.daemonPath, count: count, warmup: warmup, pinning: pinning)
            progress("   rawpipe again: \(count) round trips (+\(warmup) warm-up)")
            let after = try measureRoundTrip(path: options.rawpipePath, count: count, warmup: warmup, pinning: pinning)
            let base = RoundTripResult(latencies: Distribution(before.latencies.sorted + after.latencies.sorted),
                                       childAffinity: before.childAffinity)
            let us = { (nanos: UInt64) in Double(nanos) / 1e3 }
            let extra = [("requests", String(count)), ("rawpipe_requests", String(2 * count)), ("pinned", pinning.token)]
            report.add(Figure(name: "roundtrip_p50_us", label: "round trip p50", unit: "us", decimals: 1,
                              value: us(daemon.latencies.median), rawpipe: us(base.latencies.median), target: .ratioAtMost(2.5), extra: extra))
            report.add(Figure(name: "roundtrip_p99_us", label: "round trip p99", unit: "us", decimals: 1,
                              value: us(daemon.latencies.percentile(99)), rawpipe: us(base.latencies.percentile(99)),
                              target: .ratioAtMost(4), extra: extra))
            report.add(Figure(name: "roundtrip_max_us", label: "round trip max", unit: "us", decimals: 1,
                              value: us(daemon.latencies.maximum), rawpipe: us(base.latencies.maximum), extra: extra))
            report.notes.append("round trip: daemon threads' Cpus_allowed_list: \(daemon.childAffinity.joined(separator: " / ")); rawpipe: \(base.childAffinity.joined(separator: " / "))")
        }

        scenario(.pipelined) { report throws(BenchError) in
            let count = options.pipelinedRequests
            // rawpipe runs twice before binderyd and once after; its figure is the median of the three.
            var rawpipeCPU: [Double] = []
            func baseline(_ run: Int) throws(BenchError) -> Double {
                progress("   rawpipe run \(run) of 3: \(grouped(count)) requests, \(window) in flight")
                let result = try measurePipelined(path: options.rawpipePath, count: count, window: window, pinning: throughputPinning)
                progress("   rawpipe: \(formatted(result.requestsPerSecond, 0)) req/s")
                rawpipeCPU.append(result.cpuMicrosecondsPerRequest)
                return result.requestsPerSecond
            }
            var rates = [try baseline(1), try baseline(2)]
            progress("   binderyd: \(grouped(count)) requests, \(window) in flight")
            let daemon = try measurePipelined(path: options.daemonPath, count: count, window: window, pinning: throughputPinning)
            progress("   binderyd: \(formatted(daemon.requestsPerSecond, 0)) req/s, \(daemon.stats.readCalls) reads, \(daemon.stats.writeCalls) writes")
            rates.append(try baseline(3))
            let baseRate = rates.sorted()[1]
            report.add(Figure(name: "pipelined_rps", label: "pipelined, \(window) in flight", unit: "req/s", decimals: 0,
                              value: daemon.requestsPerSecond, rawpipe: baseRate, target: .ratioAtLeast(0.25),
                              extra: [("requests", String(count)),
                                      ("rawpipe_runs", rates.map { formatted($0, 0) }.joined(separator: "/")), ("responses_checked", String(daemon.requests)),
                                      ("didchanges_checked", String(daemon.didChanges)), ("order", "ok"),
                                      ("seconds", formatted(Double(daemon.stats.nanoseconds) / 1e9, 2)),
                                      ("reads", String(daemon.stats.readCalls)), ("writes", String(daemon.stats.writeCalls)),
                                      ("pinned", throughputPinning.token)]))
            report.add(Figure(name: "pipelined_cpu_us_per_request", label: "server CPU per pipelined request", unit: "us", decimals: 2,
                              value: daemon.cpuMicrosecondsPerRequest, rawpipe: rawpipeCPU.sorted()[1], target: .below(4),
                              extra: [("requests", String(count)), ("cpu_ms", formatted(Double(daemon.childCPUNanoseconds) / 1e6, 0))]))
            report.notes.append("pipelined: all \(grouped(count)) responses and \(grouped(daemon.didChanges)) didChanges arrived, in order (ids, revisions consecutive, didChange before its response with matching cause), from both programs")
        }

        scenario(.sessions) { report throws(BenchError) in
            let count = options.sessionCount
            progress("   binderyd: \(grouped(count)) email sessions, open + setField each")
            let result = try measureSessions(path: options.daemonPath, count: count, window: window, pinning: throughputPinning)
            report.add(Figure(name: "sessions_open_set_ms", label: "\(grouped(count)) sessions: open + setField each", unit: "ms", decimals: 1,
                              value: Double(result.nanoseconds) / 1e6, extra: [("sessions", String(count))]))
            report.add(Figure(name: "sessions_rss_bytes_per_session", label: "RSS per email session, peak", unit: "bytes", decimals: 0,
                              value: result.peakBytesPerSession, target: .below(1000),
                              extra: [("rss_after_initialize_kb", String(result.rssAfterInitialize / 1024)),
                                      ("vmhwm_kb", String(result.peakRSS / 1024)), ("sessions", String(count))]))
            report.add(Figure(name: "sessions_rss_end_bytes_per_session", label: "RSS per email session, at end", unit: "bytes", decimals: 0,
                              value: result.endBytesPerSession, extra: [("vmrss_kb", String(result.rssAtEnd / 1024))]))
            report.notes.append("sessions: RSS after initialize \(grouped(result.rssAfterInitialize / 1024)) kB, peak (VmHWM) \(grouped(result.peakRSS / 1024)) kB, at end (VmRSS) \(grouped(result.rssAtEnd / 1024)) kB")
            guard !options.quick else { return }
            let large = 100_000
            progress("   binderyd: \(grouped(large)) email sessions, open + setField each")
            let big = try measureSessions(path: options.daemonPath, count: large, window: window, pinning: throughputPinning)
            report.add(Figure(name: "sessions_100k_open_rate", label: "\(grouped(large)) sessions: opened (+ setField) per second", unit: "1/s", decimals: 0,
                              value: Double(large) / (Double(big.nanoseconds) / 1e9), extra: [("sessions", String(large))]))
            report.add(Figure(name: "sessions_100k_bytes_per_session", label: "\(grouped(large)) sessions: RSS per session, peak", unit: "bytes", decimals: 0,
                              value: big.peakBytesPerSession, extra: [("vmhwm_kb", String(big.peakRSS / 1024)), ("sessions", String(large))]))
        }

        scenario(.fanout) { report throws(BenchError) in
            let runs = options.fanoutRepetitions
            progress("   binderyd: \(grouped(options.fanoutSessions)) movieList sessions, one save, \(runs) fresh daemons")
            let result = try measureFanOut(path: options.daemonPath, sessions: options.fanoutSessions, runs: runs, window: window, pinning: throughputPinning)
            let ms = { (nanos: UInt64) in Double(nanos) / 1e6 }
            report.add(Figure(name: "fanout_ms", label: "fan-out of one save to \(grouped(result.sessions)) sessions, median of \(runs)", unit: "ms", decimals: 2,
                              value: ms(result.times.median), target: .below(5),
                              extra: [("min", formatted(ms(result.times.minimum), 2)), ("max", formatted(ms(result.times.maximum), 2)),
                                      ("sessions", String(result.sessions)), ("runs", String(runs))]))
        }

        scenario(.splices) { report throws(BenchError) in
            let lists = options.spliceLists
            var withSplices: [SplicesResult] = []
            var rows: [[String]] = []
            for movies in options.spliceStoreSizes {
                for splices in [true, false] {
                    let saves = options.spliceSaveCount(movies: movies, splices: splices)
                    progress("   binderyd: \(grouped(movies)) movies, \(lists) movieLists, \(splices ? "with" : "without") splices, \(saves) saves a daemon")
                    let result = try measureSplices(path: options.daemonPath, movies: movies, lists: lists, splices: splices,
                                                    saves: saves, minimumCPU: options.spliceMinimumCPU,
                                                    maxDaemons: options.spliceMaxDaemons, window: window, pinning: throughputPinning)
                    progress("   \(grouped(Int(result.bytesPerSave.rounded()))) bytes and \(formatted(result.cpuMillisecondsPerSave, 2)) ms CPU per save (\(result.saves) saves on \(result.daemons) daemon(s)); the first save after the opens: \(formatted(result.firstCPUMilliseconds, 1)) ms")
                    if splices { withSplices.append(result) }
                    let name = "splices_\(splices ? "" : "whole_")"
                    let extra = [("movies", String(movies)), ("lists", String(lists)), ("saves", String(result.saves)),
                                 ("daemons", String(result.daemons)), ("cpu_ms_total", formatted(Double(result.cpu) / 1e6, 0)),
                                 ("first_save_bytes", formatted(result.firstBytesPerSave, 0)),
                                 ("first_save_cpu_ms", formatted(result.firstCPUMilliseconds, 1)),
                                 ("wall_ms_per_save", formatted(result.wallMillisecondsPerSave, 2))]
                    report.add(Figure(name: "\(name)bytes_per_save_n\(movies)", label: "", unit: "bytes", decimals: 0,
                                      value: result.bytesPerSave, extra: extra, inTable: false))
                    report.add(Figure(name: "\(name)cpu_ms_per_save_n\(movies)", label: "", unit: "ms", decimals: 2,
                                      value: result.cpuMillisecondsPerSave, extra: extra, inTable: false))
                    rows.append([grouped(movies), splices ? "with" : "without", grouped(result.saves), grouped(Int(result.bytesPerSave.rounded())),
                                 formatted(result.cpuMillisecondsPerSave, 2), formatted(result.wallMillisecondsPerSave, 2),
                                 grouped(Int(result.firstBytesPerSave.rounded())), formatted(result.firstCPUMilliseconds, 1)])
                }
            }
            report.tables.append((title: "splices: one save with \(lists) movieLists open (per save, mean of the saves after the first; first save after the opens on its own)",
                                  header: ["movies", "splices", "saves", "bytes", "CPU ms", "wall ms", "first: bytes", "first: CPU ms"],
                                  rows: rows))
            // The curve's ends: bytes must not grow with N, and CPU must grow far less than N does.
            guard let small = withSplices.first, let large = withSplices.last, large.movies > small.movies else { return }
            // The targets are the issue's, for 1,000 to 100,000 movies: over a shorter span (--quick
            // stops at 10,000) meeting them would mean little, so the ratios are printed without.
            let issueSpan = small.movies == 1_000 && large.movies == 100_000
            let ends = [("from_movies", String(small.movies)), ("to_movies", String(large.movies))]
            report.add(Figure(name: "splices_bytes_flatness", label: "splices: bytes per save, \(grouped(large.movies)) / \(grouped(small.movies)) movies",
                              unit: "x", decimals: 3, value: large.bytesPerSave / small.bytesPerSave,
                              target: issueSpan ? .atMost(1.10) : nil, extra: ends))
            report.add(Figure(name: "splices_cpu_ratio", label: "splices: CPU per save, \(grouped(large.movies)) / \(grouped(small.movies)) movies",
                              unit: "x", decimals: 2, value: large.cpuMillisecondsPerSave / small.cpuMillisecondsPerSave,
                              target: issueSpan ? .atMost(10) : nil, extra: ends))
            if !issueSpan {
                report.notes.append("splices: the targets (bytes <= 1.10x, CPU <= 10x) are for 1,000 to 100,000 movies; this run spans \(grouped(small.movies)) to \(grouped(large.movies)), so they are not judged")
            }
        }

        scenario(.sharedFanout) { report throws(BenchError) in
            let clients = options.sharedClients
            let writes = options.quick ? 200 : 1_000
            progress("   binderyd --listen: \(clients) clients on one keyed email session, \(writes) writes")
            let result = try measureSharedFanOut(path: options.daemonPath, clients: clients, writes: writes)
            let us = { (nanos: UInt64) in Double(nanos) / 1e3 }
            report.add(Figure(name: "shared_fanout_p50_us", label: "shared: a write to \(clients) attached clients, p50 to the last read",
                              unit: "us", decimals: 0, value: us(result.times.median),
                              extra: [("p99_us", formatted(us(result.times.percentile(99)), 0)),
                                      ("clients", String(clients)), ("writes", String(writes))]))
            report.add(Figure(name: "shared_fanout_p99_us", label: "shared: the same, p99", unit: "us", decimals: 0,
                              value: us(result.times.percentile(99)), extra: [("clients", String(clients))]))
        }

        scenario(.remote) { report throws(BenchError) in
            let count = options.roundTripCount
            let warmup = options.roundTripWarmup
            progress("   binderyd: \(count) round trips each on stdio, on the socket, and through --remote")
            let result = try measureRemoteRoundTrip(path: options.daemonPath, count: count, warmup: warmup, pinning: pinning)
            let us = { (nanos: UInt64) in Double(nanos) / 1e3 }
            for (name, label, latencies) in [("stdio", "stdio", result.stdio), ("socket", "--listen socket, direct", result.socket),
                                             ("remote", "through --remote", result.remote)] {
                report.add(Figure(name: "roundtrip_\(name)_p50_us", label: "round trip p50, \(label)", unit: "us", decimals: 1,
                                  value: us(latencies.median),
                                  extra: [("p99_us", formatted(us(latencies.percentile(99)), 1)), ("requests", String(count))]))
            }
        }

        report.printAll()
        return report.failures.isEmpty ? 0 : 1
    }
}

extension Pinning {
    /// For BENCH lines.
    var token: String {
        switch self {
        case .affinity(let cpu): "cpu\(cpu)-sched_setaffinity"
        case .taskset(let cpu, _): "cpu\(cpu)-taskset-child-only"
        case .unpinned: "no"
        }
    }
}

/// Progress goes to stderr, so that stdout is just the table and the BENCH lines.
func progress(_ text: String) {
    var line = text + "\n"
    line.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}
