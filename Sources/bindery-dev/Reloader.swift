import Dispatch
import Glibc
import JSONRPC

/// The developer loop: a save starts a build; a build that succeeds starts the new daemon and
/// moves every session into it; one that fails is reported and changes nothing.
///
/// Saves are gathered for 30 ms before a build starts, and saves made while a build runs make one
/// more build after it (its own result is then not loaded): a burst of saves makes one build.
/// The old daemon serves until the new one has answered `viewModels/describe` and every session
/// has moved; only that last step holds the client's input. A new daemon that dies (or does not
/// answer) at start or while sessions move is killed, and the old one goes on serving as if
/// nothing happened: reported as `daemon/buildFailed` with the tail of its stderr.
/// Main actor only.
@MainActor
final class Reloader {
    let options: DevOptions
    let proxy: Proxy
    let builder: BuildRunner
    private var binPath: String?
    private var binaryStamp: FileStamp?
    private var generation = 0
    private var building = false
    private var again = false
    private var debounce: DispatchWorkItem?
    /// Whether anything has been reported yet: the first build is quiet unless it fails.
    private var reported = false

    init(options: DevOptions, proxy: Proxy) {
        self.options = options
        self.proxy = proxy
        builder = BuildRunner(packagePath: options.packagePath, product: options.product)
    }

    /// The first build and start.
    func start() {
        building = true
        Task { await cycle() }
    }

    private let saveTimes = SaveTimes()

    /// A source changed: build once the burst of saves is over.
    func sourcesChanged(_ path: String) {
        saveTimes.saved(path)
        debounce?.cancel()
        let work = DispatchWorkItem { MainActor.assumeIsolated { self.trigger() } }
        debounce = work
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(30), execute: work)
    }

    private func trigger() {
        if building {
            again = true
            return
        }
        building = true
        Task { await cycle() }
    }

    private func cycle() async {
        defer { building = false }
        repeat {
            again = false
            if reported || proxy.daemon != nil { proxy.notify("daemon/reloading", [:]) }
            log("building \(options.product): swift build --product \(options.product)")
            let outcome = await builder.build()
            log(outcome.succeeded ? "built in \(outcome.milliseconds) ms" : "the build failed (\(outcome.milliseconds) ms)")
            if again { continue }
            guard outcome.succeeded else {
                reported = true
                let diagnostics = BuildDiagnostics.forFailedBuild(outcome.output)
                proxy.notify("daemon/buildFailed", ["diagnostics": .array(diagnostics.map(\.json))])
                if proxy.daemon == nil, proxy.noDaemonReason == nil {
                    proxy.noDaemonReason = "the build of \(options.product) failed; fix it and save"
                    proxy.releaseInput()
                }
                continue
            }
            await load(buildMs: outcome.milliseconds)
        } while again
    }

    private func load(buildMs: Int) async {
        if binPath == nil { binPath = await builder.binPath() }
        let binary = (binPath ?? options.packagePath + "/.build/debug") + "/" + options.product
        let stamp = FileStamp(binary)
        if let current = proxy.daemon, current.exitCode == nil, stamp != nil, stamp == binaryStamp {
            // Nothing the product is made of changed (a test, a comment the compiler ignores).
            reloaded(buildMs: buildMs, restartMs: 0, migrateMs: 0, types: [], outcome: nil)
            return
        }
        let clock = ContinuousClock()
        let restartStart = clock.now
        generation += 1
        let candidate: Daemon
        do {
            candidate = try Daemon(generation: generation, path: binary, arguments: options.daemonArguments) { [proxy] daemon, message in
                proxy.daemonSent(daemon, message)
            }
        } catch {
            rolledBack("bindery-dev could not start \(binary): \(error)")
            return
        }
        let tracker = MigrationTracker()
        proxy.candidate = candidate
        proxy.candidateSent = { tracker.received($0) }
        defer {
            proxy.candidate = nil
            proxy.candidateSent = nil
        }
        do {
            if let initialize = proxy.initializeParams { _ = try await candidate.call("initialize", initialize) }
            candidate.describe(try await candidate.call("viewModels/describe", .object([:])))
        } catch {
            await rollBack(candidate, "at start", error)
            return
        }
        let restartMs = milliseconds(since: restartStart)
        let serving = proxy.daemon.flatMap { $0.exitCode == nil ? $0 : nil }
        guard let old = serving ?? (proxy.sessions.isEmpty ? nil : proxy.orphanedFrom) else {
            // The first daemon, or one after the previous died with no session open: nothing to move.
            proxy.install(candidate, sessions: [])
            binaryStamp = stamp
            if reported { reloaded(buildMs: buildMs, restartMs: restartMs, migrateMs: 0,
                                   types: candidate.schemas.keys.sorted(), outcome: nil) }
            proxy.releaseInput()
            return
        }
        let migrateStart = clock.now
        proxy.holdInput()
        defer { proxy.releaseInput() }
        await proxy.settle(timeout: .seconds(2))
        let records = proxy.sessions.values.filter { $0.parent == nil }.sorted { $0.id < $1.id }
        let outcome: Migration.Outcome
        do {
            outcome = try await Migration(old: old, new: candidate).run(records, tracker: tracker) { [proxy] record in
                proxy.heldFields(record, in: old)
            }
            if let code = candidate.exitCode { throw Migration.Died(message: "exited with code \(code)") }
        } catch {
            await rollBack(candidate, "while its sessions were restored", error)
            return
        }
        let types = Schema.changedTypes(from: old.schemas, to: candidate.schemas)
        let gone = switchOver(to: candidate, outcome, tracker: tracker)
        old.retire()
        binaryStamp = stamp
        reloaded(buildMs: buildMs, restartMs: restartMs, migrateMs: milliseconds(since: migrateStart), types: types,
                 outcome: outcome, gone: gone)
    }

    private func reloaded(buildMs: Int, restartMs: Int, migrateMs: Int, types: [String], outcome: Migration.Outcome?,
                          gone: [(record: SessionRecord, reason: String)] = []) {
        reported = true
        var params: JSONObject = ["buildMs": .int(buildMs), "restartMs": .int(restartMs), "migrateMs": .int(migrateMs),
                                  "types": .array(types.map { .string($0) })]
        var removed: [JSONValue] = [], fellBack: [JSONValue] = [], closed: [JSONValue] = []
        for moved in outcome?.moved ?? [] {
            removed += moved.removed.map { ["session": .int(moved.record.id), "field": .string($0)] }
            fellBack += moved.fellBack.map { ["session": .int(moved.record.id), "field": .string($0)] }
        }
        for (record, reason) in (outcome?.closed ?? []) + gone {
            closed.append(["session": .int(record.id), "type": .string(record.type), "reason": .string(reason)])
        }
        params.append("removed", .array(removed))
        params.append("fellBack", .array(fellBack))
        params.append("closed", .array(closed))
        proxy.notify("daemon/reloaded", params)
        log("reloaded: build \(buildMs) ms, restart \(restartMs) ms, migrate \(migrateMs) ms; changed: \(types.joined(separator: ", "))")
    }

    /// Reports a new daemon that could not take over; the old one goes on serving.
    private func rolledBack(_ message: String) {
        reported = true
        let diagnostic = BuildDiagnostics.Diagnostic(file: nil, line: 0, column: 0, severity: "error", message: message)
        proxy.notify("daemon/buildFailed", ["diagnostics": [diagnostic.json], "rolledBack": true])
        log("rolled back: \(message)")
    }

    /// Kills a new daemon that died or hung, and reports it with the tail of its stderr.
    private func rollBack(_ daemon: Daemon, _ when: String, _ error: any Error) async {
        let what = daemon.exitCode.map { "exited with code \($0)" } ?? "did not answer (\(error))"
        daemon.kill()
        await waitForExit(daemon)
        let tail = daemon.stderrSummary
        rolledBack("the new \(options.product) \(what) \(when); still serving the previous build"
            + (tail.isEmpty ? "" : "\n" + tail))
    }

    private func waitForExit(_ daemon: Daemon) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            daemon.onExit { _ in continuation.resume() }
        }
    }
}

/// What tells one build of a file from another: its inode, size and modification time.
struct FileStamp: Equatable {
    let inode: UInt
    let size: Int
    let seconds: Int
    let nanoseconds: Int

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        inode = UInt(info.st_ino)
        size = Int(info.st_size)
        seconds = Int(info.st_mtim.tv_sec)
        nanoseconds = Int(info.st_mtim.tv_nsec)
    }
}

/// A line on stderr, for the person running bindery-dev.
func log(_ message: String) {
    let line = Array("bindery-dev: \(message)\n".utf8)
    line.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}
