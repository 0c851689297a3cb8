import Glibc
import JSONRPC

/// `bindery-dev --record FILE`: the session as the client saw it, across reloads, as a transcript
/// (protocol.md, "Transcripts"): a tee of bindery-dev's own stdin and stdout.
///
/// The header names the product as the daemon and the daemon's arguments (a recording runs its
/// daemons with `--deterministic`), so `bindery-replay --daemon .build/debug/PRODUCT FILE` replays it.
/// bindery-dev's own notifications (`daemon/reloading`, `daemon/reloaded`, `daemon/buildFailed`,
/// `daemon/exited`) are not written: no daemon sends them, and they carry timings. Each line is
/// flushed as it is written, so the file is whole whenever bindery-dev ends. Main actor only.
@MainActor
final class Recorder {
    private let file: UnsafeMutablePointer<FILE>
    private let header: JSONObject
    private var wroteHeader = false

    /// Opens `path` (created or truncated); nil, said on stderr, when it cannot.
    init?(path: String, product: String, daemonArguments: [String]) {
        guard let file = fopen(path, "w") else {
            log("cannot open \(path) for recording (errno \(errno))")
            return nil
        }
        self.file = file
        header = ["daemon": .string(product), "arguments": .array(daemonArguments.map(JSONValue.string))]
    }

    /// What the client sent, as bindery-dev read it.
    func received(_ events: [FrameEvent], framing: Framing) {
        writeHeader(framing)
        for event in events {
            switch event {
            case .frame(let body):
                if (try? JSONParser.parse(body)) != nil {
                    write(Array(#"{"in":"#.utf8) + body + [UInt8(ascii: "}")])
                } else {
                    write(JSONWriter.bytes(["inRaw": .string(String(decoding: body, as: UTF8.self))]))
                }
            case .error:
                continue  // framing that could not be read: no body a replay could send
            }
        }
    }

    /// What bindery-dev told the client.
    func sent(_ message: JSONValue, framing: Framing) {
        if let method = message["method"]?.stringValue, method.hasPrefix("daemon/") { return }
        writeHeader(framing)
        write(Array(#"{"out":"#.utf8) + message.bytes + [UInt8(ascii: "}")])
    }

    private func writeHeader(_ framing: Framing) {
        guard !wroteHeader else { return }
        wroteHeader = true
        var line: JSONObject = ["framing": .string(framing.rawValue)]
        for (key, value) in header.members { line.append(key, value) }
        write(JSONWriter.bytes(.object(line)))
    }

    private func write(_ line: [UInt8]) {
        _ = line.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fputc(0x0A, file)
        fflush(file)
    }
}
