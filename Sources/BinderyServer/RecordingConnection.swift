#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// A connection that writes down everything that passes through the one it wraps, in order, as JSON
/// lines: the `--record FILE` transcript.
///
/// The first line names the client's framing, `{"framing":"content-length"}` or
/// `{"framing":"ndjson"}`, the daemon (`"daemon":"binderyd"`: which one a replay runs) and the
/// options a replay must pass (`"arguments":["--deterministic",...]`);
/// then `{"in":MESSAGE}` for each body the client sent, as it arrives (`{"inRaw":"TEXT"}` when it
/// was not JSON), and `{"out":MESSAGE}` for each body sent back, byte for byte.
@MainActor
public final class RecordingConnection: Connection {
    private let base: any Connection
    private let file: UnsafeMutablePointer<FILE>
    private let arguments: [String]
    private let daemon: String?
    private var wroteHeader = false

    /// Opens `path` for writing; throws a message when it cannot.
    /// - Parameters:
    ///   - base: the connection to record.
    ///   - path: the transcript file, created or truncated.
    ///   - arguments: the daemon's options a replay needs (`--deterministic` ...), written in the header.
    ///   - daemon: the daemon's name, written in the header.
    public init(recording base: any Connection, to path: String, arguments: [String], daemon: String? = nil) throws(RecordingError) {
        guard let file = fopen(path, "w") else { throw RecordingError(path: path, errno: errno) }
        self.base = base
        self.file = file
        self.arguments = arguments
        self.daemon = daemon
        base.keepBodies()
    }

    public var framing: Framing? { base.framing }

    public func start(_ handler: @escaping @MainActor ([Inbound]) -> Void) {
        base.start { [unowned self] items in
            for item in items { record(item) }
            handler(items)
        }
    }

    public func send(_ body: [UInt8]) {
        line("{\"out\":", body, "}")
        base.send(body)
    }

    public func flush() {
        fflush(file)
        base.flush()
    }

    public func close(exitCode: Int32) {
        fflush(file)
        base.close(exitCode: exitCode)
    }

    private func record(_ item: Inbound) {
        switch item {
        case .message(_, let body), .request(_, let body):
            header()
            line("{\"in\":", body, "}")
        case .malformed(_, let body):
            header()
            line("{\"inRaw\":", JSONWriter.bytes(.string(String(decoding: body, as: UTF8.self))), "}")
        case .end:
            fflush(file)
        }
    }

    private func header() {
        guard !wroteHeader else { return }
        wroteHeader = true
        var header: JSONObject = ["framing": .string((framing ?? .contentLength).rawValue)]
        if let daemon { header.append("daemon", .string(daemon)) }
        if !arguments.isEmpty { header.append("arguments", .array(arguments.map(JSONValue.string))) }
        line("", JSONWriter.bytes(.object(header)), "")
    }

    private func line(_ prefix: String, _ body: [UInt8], _ suffix: String) {
        fputs(prefix, file)
        _ = body.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fputs(suffix + "\n", file)
    }

    /// The transcript file could not be opened.
    public struct RecordingError: Error, CustomStringConvertible {
        public let path: String
        public let errno: Int32
        public var description: String { "cannot open \(path) for recording (errno \(errno))" }
    }
}
