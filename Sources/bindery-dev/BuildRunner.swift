import Dispatch
import Glibc
import JSONRPC

/// Runs `swift build` for the product, off the main actor, and tells how it went.
///
/// The build runs in its own process group, on a thread of its own that waits for it; the main
/// actor awaits ``build()``. ``cancel()`` (bindery-dev ending) stops it with what it started.
@MainActor
final class BuildRunner {
    let packagePath: String
    let product: String
    private var running: ChildProcess?

    struct Outcome: Sendable {
        let succeeded: Bool
        let output: String
        let milliseconds: Int
    }

    init(packagePath: String, product: String) {
        self.packagePath = packagePath
        self.product = product
    }

    /// `swift build --product NAME`: its combined output and whether it succeeded.
    func build() async -> Outcome {
        await run(["build", "--package-path", packagePath, "--product", product])
    }

    /// The folder `swift build` puts products in (`--show-bin-path`), or nil if it cannot say.
    func binPath() async -> String? {
        let outcome = await run(["build", "--package-path", packagePath, "--show-bin-path"])
        guard outcome.succeeded else { return nil }
        return outcome.output.split(separator: "\n").last.map { String($0).trimmingWhitespace() }
    }

    func cancel() { running?.terminate() }

    private func run(_ arguments: [String]) async -> Outcome {
        let clock = ContinuousClock()
        let start = clock.now
        let process: ChildProcess
        do {
            process = try ChildProcess(path: "/usr/bin/env", arguments: ["swift"] + arguments, mergeStderr: true)
        } catch {
            return Outcome(succeeded: false, output: "bindery-dev: \(error)", milliseconds: 0)
        }
        process.closeStdin()
        running = process
        let (code, output) = await withCheckedContinuation { (continuation: CheckedContinuation<(Int32, String), Never>) in
            let collected = Collected()
            readToEnd(process.stdout, onChunk: { collected.bytes.append(contentsOf: $0) }, onEnd: {
                let code = process.waitForExit()
                continuation.resume(returning: (code, String(decoding: collected.bytes, as: UTF8.self)))
            })
        }
        running = nil
        return Outcome(succeeded: code == 0, output: output, milliseconds: milliseconds(since: start))
    }
}

/// Output gathered by one reader thread.
private final class Collected: @unchecked Sendable {
    var bytes: [UInt8] = []
}

/// Whole milliseconds since `start`.
func milliseconds(since start: ContinuousClock.Instant) -> Int {
    let elapsed = ContinuousClock.now - start
    return Int(elapsed.components.seconds) * 1000 + Int(elapsed.components.attoseconds / 1_000_000_000_000_000)
}
