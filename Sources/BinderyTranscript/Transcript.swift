#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// A recorded exchange between a client and a daemon, in the format `binderyd --record` writes
/// (protocol.md, "Transcripts"): a header line, then each body the client sent (`in`, or `inRaw`
/// for one that was not JSON) and each body the daemon wrote (`out`), in order, and an optional
/// last line `{"exit":N}`.
///
/// ```swift
/// let transcript = try Transcript(contentsOf: "Tests/Transcripts/login.jsonl")
/// print(transcript.daemon, transcript.arguments, transcript.messages.count)
/// ```
public struct Transcript: Sendable {
    /// One line of the exchange.
    public struct Message: Sendable {
        public enum Direction: Sendable { case sent, received }
        public var direction: Direction
        /// The body: as recorded for a sent one (so a replay sends the same bytes), as written for a
        /// received one (its rewritten form in record mode).
        public var body: [UInt8]
        /// Whether a sent body was recorded as text (`inRaw`: not JSON).
        public var isRaw = false
        /// The line of the file it was read from (from 1), 0 for a message not read from a file.
        public var line = 0

        public init(_ direction: Direction, _ body: [UInt8], isRaw: Bool = false, line: Int = 0) {
            self.direction = direction
            self.body = body
            self.isRaw = isRaw
            self.line = line
        }
    }

    /// The first line, kept whole so that a rewrite keeps members this version does not know.
    public var header: JSONObject
    public var messages: [Message]
    /// The exit code the daemon must end with once the client's input ends (`{"exit":N}`), if pinned.
    public var exitCode: Int32?
    /// The file it was read from, if any: where record mode writes.
    public var path: String?

    /// The client's framing (`"framing"`), content-length unless the header says otherwise.
    public var framing: Framing {
        header["framing"]?.stringValue.flatMap(Framing.init(rawValue:)) ?? .contentLength
    }
    /// The daemon it was recorded with (`"daemon"`): `binderyd` when the header names none.
    public var daemon: String { header["daemon"]?.stringValue ?? "binderyd" }
    /// The daemon options a replay must pass (`"arguments"`: `--deterministic`, `--seed N`).
    public var arguments: [String] { header["arguments"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    /// Whether it ran on the virtual clock, so that timers and async commands replay exactly.
    public var isDeterministic: Bool { arguments.contains("--deterministic") }
    /// The file's name, or "transcript".
    public var name: String { path.map { String($0.split(separator: "/").last ?? "") } ?? "transcript" }

    public init(header: JSONObject, messages: [Message], exitCode: Int32? = nil) {
        self.header = header
        self.messages = messages
        self.exitCode = exitCode
    }

    /// Reads a transcript file. A relative `path` is taken from the folder of `relativeTo` (by
    /// default the source file that calls this, so a test finds the transcript beside it).
    public init(_ path: String, relativeTo file: String = #filePath) throws(TranscriptError) {
        var resolved = path
        if !path.hasPrefix("/"), let slash = file.lastIndex(of: "/") { resolved = file[..<slash] + "/" + path }
        try self.init(contentsOf: resolved)
    }

    /// Reads the transcript file at `path` (relative to the current directory).
    public init(contentsOf path: String) throws(TranscriptError) {
        guard let bytes = Self.read(path) else { throw TranscriptError("cannot read \(path) (errno \(errno))") }
        try self.init(jsonLines: bytes, path: path)
    }

    /// Parses the JSON lines of a transcript; `path` is only for messages and record mode.
    public init(jsonLines bytes: [UInt8], path: String? = nil) throws(TranscriptError) {
        header = [:]
        messages = []
        self.path = path
        var sawHeader = false
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = Array(line)
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            let value: JSONValue
            do { value = try JSONParser.parse(line) } catch {
                throw TranscriptError("\(self.name) line \(number): not JSON (\(error))")
            }
            guard let object = value.objectValue else { throw TranscriptError("\(self.name) line \(number): not an object") }
            if let sent = object["in"] {
                // The recorded bytes when the line is written as binderyd writes it; else the value's.
                let prefix = Array(#"{"in":"#.utf8)
                let body = line.starts(with: prefix) && line.last == UInt8(ascii: "}") && object.count == 1
                    ? Array(line[prefix.count..<(line.count - 1)]) : JSONWriter.bytes(sent)
                messages.append(Message(.sent, body, line: number))
            } else if let raw = object["inRaw"]?.stringValue {
                messages.append(Message(.sent, Array(raw.utf8), isRaw: true, line: number))
            } else if let received = object["out"] {
                messages.append(Message(.received, JSONWriter.bytes(received), line: number))
            } else if case .int(let code)? = object["exit"] {
                exitCode = Int32(truncatingIfNeeded: code)
            } else if !sawHeader, object["framing"] != nil {
                header = object
                sawHeader = true
            } else {
                throw TranscriptError("\(self.name) line \(number): not a transcript line (in, inRaw, out, exit or a header)")
            }
        }
        guard sawHeader else { throw TranscriptError("\(self.name): no header line ({\"framing\":…})") }
    }

    /// The transcript as JSON lines, as `binderyd --record` writes them.
    public func jsonLines() -> [UInt8] {
        var text = JSONWriter.bytes(.object(header)) + [UInt8(ascii: "\n")]
        for message in messages {
            switch message.direction {
            case .sent where message.isRaw:
                text += JSONWriter.bytes(.object(["inRaw": .string(String(decoding: message.body, as: UTF8.self))]))
            case .sent:
                text += Array(#"{"in":"#.utf8) + message.body + [UInt8(ascii: "}")]
            case .received:
                text += Array(#"{"out":"#.utf8) + message.body + [UInt8(ascii: "}")]
            }
            text.append(UInt8(ascii: "\n"))
        }
        if let exitCode { text += Array(#"{"exit":\#(exitCode)}"#.utf8) + [UInt8(ascii: "\n")] }
        return text
    }

    /// Writes ``jsonLines()`` to `path` (through a temporary file renamed over it).
    public func write(to path: String) throws(TranscriptError) {
        let temporary = path + ".recording"
        guard let file = fopen(temporary, "w") else { throw TranscriptError("cannot write \(temporary) (errno \(errno))") }
        let bytes = jsonLines()
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        fclose(file)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw TranscriptError("cannot write \(path) (errno \(errno))")
        }
    }

    private static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return ferror(file) == 0 ? bytes : nil
    }
}

/// A transcript that cannot be read or written, and why.
public struct TranscriptError: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
