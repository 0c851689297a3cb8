/// Splices: a store of `movies` movies, `lists` open movieLists, one save: the bytes the daemon
/// writes for it (every list's `didChange` and the response) and the CPU it spends, with and without
/// the `splices` capability. Without, every list is sent the whole list again: O(N × lists) bytes.
/// With, one op appending the movie: flat in N, and the list is diffed once per save, not per list.
///
/// The first save after the lists opened is measured on its own: each list read the store when it
/// opened, into a JSON array of its own, and the daemon shares a diff only between lists that hold
/// the same array, so that save diffs every list separately. After it, all lists hold the one array
/// of the last save. The figures are the saves after the first.
///
/// CPU time (`ChildProcess.cpuNanoseconds`) is summed over the saves and divided.
/// Where one daemon's saves add up to less than `minimumCPU`, more fresh daemons run the same saves
/// (rather than more saves on one, which would let the store grow well past N).
struct SplicesResult {
    var movies: Int
    var lists: Int
    var splices: Bool
    var daemons = 0
    /// The first save after the opens, summed over the daemons.
    var firstBytes = 0
    var firstCPU: UInt64 = 0
    /// The measured saves, summed over the daemons.
    var saves = 0
    var bytes = 0
    var cpu: UInt64 = 0
    /// Wall time of the measured saves, the client's checks included.
    var nanoseconds: UInt64 = 0

    var bytesPerSave: Double { Double(bytes) / Double(max(saves, 1)) }
    var cpuMillisecondsPerSave: Double { Double(cpu) / 1e6 / Double(max(saves, 1)) }
    var wallMillisecondsPerSave: Double { Double(nanoseconds) / 1e6 / Double(max(saves, 1)) }
    var firstBytesPerSave: Double { Double(firstBytes) / Double(max(daemons, 1)) }
    var firstCPUMilliseconds: Double { Double(firstCPU) / 1e6 / Double(max(daemons, 1)) }
}

func measureSplices(path: String, movies: Int, lists: Int, splices: Bool, saves: Int, minimumCPU: UInt64,
                    maxDaemons: Int, window: Int, pinning: Pinning) throws(BenchError) -> SplicesResult {
    var result = SplicesResult(movies: movies, lists: lists, splices: splices)
    while result.daemons < maxDaemons, result.daemons == 0 || result.cpu < minimumCPU {
        progress("   daemon \(result.daemons + 1): \(grouped(movies)) saves to fill the store, \(lists) lists opened, a first save, then \(saves) measured")
        try pinning.run { () throws(BenchError) in
            var store = try openMovieLists(path: path, movies: movies, lists: lists, splices: splices,
                                           window: window, pinning: pinning)
            let child = store.client.child
            func cpuTime() throws(BenchError) -> UInt64 {
                guard let nanos = child.cpuNanoseconds() else { throw BenchError("cannot read /proc/\(child.pid)/stat") }
                return nanos
            }
            try store.settle()
            var cpu = try cpuTime()
            result.firstBytes += try store.save()
            try store.settle()
            let afterFirst = try cpuTime()
            result.firstCPU += afterFirst - cpu
            // A profiler of the measured saves alone can switch itself on at this line (callgrind_control -i on).
            progress("   daemon \(result.daemons + 1): first save done, \(formatted(Double(afterFirst - cpu) / 1e6, 0)) ms CPU; measuring")
            cpu = afterFirst
            let start = monotonicNanos()
            for _ in 0..<saves { result.bytes += try store.save() }
            result.nanoseconds += monotonicNanos() - start
            try store.settle()
            result.cpu += try cpuTime() - cpu
            result.saves += saves
            result.daemons += 1
            try store.client.finish()
        }
    }
    return result
}
