#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// Writes every message in and out, in order, as JSON lines: the `--record FILE` transcript.
///
/// The first line names the client's framing, `{"framing":"content-length"}` or
/// `{"framing":"ndjson"}`, and the options a replay must pass (`"arguments":["--deterministic",...]`); then `{"in":MESSAGE}` for each body the client sent (`{"inRaw":"TEXT"}` when it
/// was not JSON) and `{"out":MESSAGE}` for each body the daemon wrote, byte for byte as written.
/// Main actor only, which is also what keeps the lines in the order of the exchange.
@MainActor
final class Recorder {
    private let file: UnsafeMutablePointer<FILE>
    private let arguments: [String]
    private var wroteHeader = false

    /// `arguments`: the daemon's options a replay needs (`--deterministic` ...), written in the header.
    init(path: String, arguments: [String]) {
        self.arguments = arguments
        guard let file = fopen(path, "w") else {
            StandardStreams.log("binderyd: error: cannot open \(path) for recording (errno \(errno))")
            exit(2)
        }
        self.file = file
    }

    func recordIn(_ body: [UInt8], framing: Framing?) {
        header(framing)
        line("{\"in\":", body, "}")
    }

    func recordInRaw(_ body: [UInt8], framing: Framing?) {
        header(framing)
        line("{\"inRaw\":", JSONWriter.bytes(.string(String(decoding: body, as: UTF8.self))), "}")
    }

    func recordOut(_ body: [UInt8]) {
        line("{\"out\":", body, "}")
    }

    func flush() { fflush(file) }

    private func header(_ framing: Framing?) {
        guard !wroteHeader else { return }
        wroteHeader = true
        var header: JSONObject = ["framing": .string((framing ?? .contentLength).rawValue)]
        if !arguments.isEmpty { header.append("arguments", .array(arguments.map(JSONValue.string))) }
        line("", JSONWriter.bytes(.object(header)), "")
    }

    private func line(_ prefix: String, _ body: [UInt8], _ suffix: String) {
        fputs(prefix, file)
        _ = body.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fputs(suffix + "\n", file)
    }
}
