import Foundation
import JSONRPC

/// A real `binderyd` child process on pipes, for end-to-end tests.
///
/// Reading has a deadline so that a daemon that fails to answer fails the test instead of hanging it.
final class DaemonProcess {
    let process = Process()
    private let stdinPipe = Pipe()
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    private var decoder = FrameDecoder()
    private var pending: [FrameEvent] = []

    /// An executable built next to the test bundle: `swift build` puts them in the same folder.
    static func executableURL(_ name: String) -> URL {
        if name == "binderyd", let path = ProcessInfo.processInfo.environment["BINDERYD"] {
            return URL(fileURLWithPath: path)
        }
        let bundle = Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL
            ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return bundle.deletingLastPathComponent().appendingPathComponent(name)
    }

    init(executable: String = "binderyd", arguments: [String] = []) throws {
        process.executableURL = Self.executableURL(executable)
        process.arguments = arguments
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// The daemon's stdin, for a test that writes from a thread of its own.
    var input: FileHandle { stdinPipe.fileHandleForWriting }

    func write(_ bytes: [UInt8]) {
        stdinPipe.fileHandleForWriting.write(Data(bytes))
    }

    func send(_ body: [UInt8], framing: Framing) {
        var bytes: [UInt8] = []
        framing.frame(body, into: &bytes)
        write(bytes)
    }

    func closeInput() {
        try? stdinPipe.fileHandleForWriting.close()
    }

    /// The next message body the daemon wrote, or nil at end of stream or after `timeout` seconds.
    func readBody(timeout: Double = 10) -> [UInt8]? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let event = decoder.next() {
                if case .frame(let body) = event { return body }
                return nil
            }
            guard Date() < deadline, let chunk = readChunk(until: deadline) else { return nil }
            decoder.append(chunk)
        }
    }

    /// Waits for the process to end; returns its exit code, or nil if it is still running at the deadline.
    func waitForExit(timeout: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(2000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    /// What the daemon wrote to stderr; call it once the process has ended (it reads to the end).
    var standardError: String {
        String(decoding: stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Everything on stdout as text, for commands that print rather than speak the protocol.
    var standardOutput: String {
        String(decoding: stdoutPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Closes our end of the daemon's stdout, as a client that goes away does.
    func closeOutput() {
        try? stdoutPipe.fileHandleForReading.close()
    }

    private func readChunk(until deadline: Date) -> [UInt8]? {
        let fd = stdoutPipe.fileHandleForReading.fileDescriptor
        var pollfd = Glibc.pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
        guard poll(&pollfd, 1, milliseconds) > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = read(fd, &buffer, buffer.count)
        return count > 0 ? Array(buffer[..<count]) : nil
    }
}
