#if canImport(Glibc)
import Glibc
#endif

/// `swift run -c release bindery-bench` builds only the bench, not binderyd or rawpipe, and would
/// happily measure a stale daemon. So when the default paths are used (the programs next to this
/// executable) and the current directory is the package, the bench first runs
/// `swift build -c <config> --scratch-path <its scratch path> --product binderyd` (and `rawpipe`):
/// a second or so when they are up to date. `--no-build` skips it.
func buildDefaultPrograms(options: Options) throws(BenchError) {
    var products: [String] = []
    if options.daemonPathIsDefault { products.append("binderyd") }
    if options.rawpipePathIsDefault { products.append("rawpipe") }
    guard options.build, !products.isEmpty else { return }

    // The bench lives in <scratch>/<triple>/<config>/bindery-bench.
    let directory = Options.executableDirectory()
    let components = directory.split(separator: "/", omittingEmptySubsequences: false)
    guard components.count > 3, let configuration = components.last, configuration == "release" || configuration == "debug" else {
        progress("not building binderyd/rawpipe: \(directory) is not a SwiftPM build directory")
        return
    }
    let scratch = components.dropLast(2).joined(separator: "/")
    guard access("Package.swift", R_OK) == 0, let swift = Pinning.searchPath("swift") else {
        progress("not building binderyd/rawpipe: no Package.swift here or no swift on PATH (run from the package root, or pass --no-build)")
        return
    }
    if configuration == "debug" { progress("warning: this is a debug build of the bench; run it with -c release") }
    for product in products {
        progress("building \(product): swift build -c \(configuration) --scratch-path \(scratch) --product \(product)")
        let code = try runCommand([swift, "build", "-c", String(configuration), "--scratch-path", scratch, "--product", product])
        if code != 0 { throw BenchError("building \(product) failed (exit code \(code))") }
    }
}

/// Runs a command with its stdout sent to our stderr; returns its exit code.
func runCommand(_ command: [String]) throws(BenchError) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, 2, 1)
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) }
    argv.append(nil)
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, command[0], &actions, nil, &argv, environ)
    guard result == 0 else { throw BenchError("cannot run \(command[0]): \(String(cString: strerror(result)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// The first line a program prints for `--version` (empty when it prints nothing).
func versionLine(of path: String) -> String {
    guard let child = try? ChildProcess(path: path, arguments: ["--version"]) else { return "" }
    child.closeInput()
    var bytes = [UInt8](repeating: 0, count: 256)
    var length = 0
    while length < bytes.count {
        let count = bytes.withUnsafeMutableBufferPointer { read(child.outputFD, $0.baseAddress! + length, $0.count - length) }
        if count < 0, errno == EINTR { continue }
        if count <= 0 { break }
        length += count
    }
    child.finish()
    return String(decoding: bytes[0..<length], as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
}
