import Glibc

/// Keeps a save from going unseen by the build when it kept the modification time of the save
/// before it.
///
/// `swift build` (llbuild, then the Swift driver) tells a changed source by its modification time
/// alone: a source whose time equals the one it read at the last build is taken as unchanged,
/// whatever its content. A save that replaces the file (a new file renamed over it: what most
/// editors and scripts do) is stamped with the kernel's coarse clock, whose tick is 4 ms here
/// (`CONFIG_HZ=250`). Two saves of a file within one tick get the same time; if a build read the
/// time between them, it compiled the first and no later build saw the second: a save that did
/// nothing. So each save's time is compared with the last one seen for that file, and when they
/// are equal, the file's time is moved on (to the fine-grained clock's now), which no build has
/// read. Only the time moves; two saves within 4 ms come from programs, not from a person typing.
/// Main actor only.
@MainActor
final class SaveTimes {
    private var last: [String: Int] = [:]

    /// A save of `path` was seen (in the order the watcher reports them).
    func saved(_ path: String) {
        guard var time = Self.modified(path) else {
            last[path] = nil
            return
        }
        if last[path] == time {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            time = max(Int(now.tv_sec) * 1_000_000_000 + Int(now.tv_nsec), time + 1)
            let omit = (1 << 30) - 2  // UTIME_OMIT (a macro Swift does not import): the access time stays
            var times = [timespec(tv_sec: 0, tv_nsec: omit),
                         timespec(tv_sec: time / 1_000_000_000, tv_nsec: time % 1_000_000_000)]
            if utimensat(AT_FDCWD, path, &times, 0) != 0 { return }
            log("\(path) was saved twice within one tick of the file system's clock: its time moved on, so that the build sees the last save")
        }
        last[path] = time
    }

    private static func modified(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mtim.tv_sec) * 1_000_000_000 + Int(info.st_mtim.tv_nsec)
    }
}
