/// Start-up: from `posix_spawn` to having read the `initialize` response, pinned to one core. The
/// daemon and rawpipe alternate, run after run, so that drift hits both alike.
struct StartupResult {
    var daemon: Distribution
    var rawpipe: Distribution
    /// The CPUs the daemon's threads were allowed, as /proc reported them during a run.
    var daemonAffinity: [String]
}

func measureStartup(options: Options, pinning: Pinning) throws(BenchError) -> StartupResult {
    var daemonSamples: [UInt64] = []
    var rawpipeSamples: [UInt64] = []
    var affinity: [String] = []
    let initialize = Requests.encode(
        id: 1, method: "initialize",
        params: #"{"processId":null,"clientInfo":{"name":"bindery-bench"},"capabilities":{}}"#)

    for run in 0..<options.startupRuns {
        let order = run % 2 == 0 ? [true, false] : [false, true]
        for isDaemon in order {
            let path = isDaemon ? options.daemonPath : options.rawpipePath
            try pinning.run { () throws(BenchError) in
                let start = monotonicNanos()
                let client = try Client(path: path, pinning: pinning)
                try client.send(initialize)
                var response: Frame
                while true {   // rawpipe sends its canned didChange first
                    response = try client.reader.nextFrame()
                    if case .response(1, let isError, _) = try client.classify(response) {
                        if isError { throw BenchError("initialize failed: \(response.text)") }
                        break
                    }
                }
                let elapsed = monotonicNanos() - start
                if isDaemon {
                    if run == 0 {
                        guard response.contains(Array(#""protocolVersion":1"#.utf8)) else {
                            throw BenchError("the initialize result lacks protocolVersion 1: \(response.text.prefix(200))")
                        }
                        affinity = client.child.threadAffinities()
                    }
                    daemonSamples.append(elapsed)
                } else {
                    rawpipeSamples.append(elapsed)
                }
                try client.finish()
            }
        }
    }
    return StartupResult(daemon: Distribution(daemonSamples), rawpipe: Distribution(rawpipeSamples), daemonAffinity: affinity)
}
