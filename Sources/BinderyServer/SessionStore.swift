#if canImport(Glibc)
import Glibc
#endif
import Bindery

/// `binderyd --state DIR`: keyed sessions kept on disk, so that a form survives a restart.
///
/// A keyed session is written to DIR a moment after it changes (``debounce``: its changes settle
/// first) and when the daemon ends, and deleted when it is closed. A `session/open` with a key that
/// no live session holds reopens the stored one with its fields. Each file is written whole and
/// renamed into place after an fsync, so a daemon killed at any point leaves the old file or the new
/// one, never half of one; what it loses is at most the last ``debounce`` of changes.
///
/// Keys never become paths: a file is named by two 64-bit hashes of the key's bytes, and holds the
/// key itself, checked on reading. Files are readable by the user only. A file that cannot be read
/// (corrupt, foreign, another key) is reported on stderr and moved aside as `NAME.corrupt`.
///
/// The format of a file, one JSON object:
/// `{"format":"bindery-session/1","key":K,"type":T,"schemaHash":H,"revision":R,"fields":{...}}`.
@MainActor
final class SessionStore {
    static let format = "bindery-session/1"
    static let debounce = Duration.milliseconds(250)

    let directory: String
    /// Keyed sessions changed since they were last written, by id.
    private var unsaved: [Int: Session] = [:]
    private var flushScheduled = false

    /// Opens DIR, creating it (readable by the user only) if needed.
    init(directory: String) throws(StoreError) {
        self.directory = directory
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw StoreError("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw StoreError("cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
    }

    /// The stored session of `key`, if there is a readable one.
    func load(key: String) -> Stored? {
        let path = self.path(for: key)
        guard let bytes = readFile(path) else { return nil }
        guard let json = try? JSONParser.parse(bytes), json["format"] == .string(Self.format),
              json["key"] == .string(key), let type = json["type"]?.stringValue,
              case .object(let fields)? = json["fields"] else {
            moveAside(path, because: "not a stored Bindery session for key \(JSONWriter.string(.string(key)))")
            return nil
        }
        return Stored(type: type, schemaHash: json["schemaHash"]?.stringValue, fields: fields)
    }

    struct Stored {
        let type: String
        let schemaHash: String?
        let fields: JSONObject
    }

    /// Notes that a keyed session changed: it is written once its changes settle.
    func sessionChanged(_ session: Session) {
        guard session.key != nil, !session.isClosed else { return }
        unsaved[session.id] = session
        guard !flushScheduled else { return }
        flushScheduled = true
        Task { @MainActor [weak self] in
            try? await Task.sleep(for: Self.debounce)
            self?.flush()
        }
    }

    /// Writes every keyed session changed since it was last written.
    func flush() {
        flushScheduled = false
        let sessions = unsaved.values.sorted { $0.id < $1.id }
        unsaved.removeAll()
        for session in sessions where !session.isClosed { write(session) }
    }

    /// A keyed session closed: its file goes too.
    func sessionClosed(_ session: Session) {
        guard let key = session.key else { return }
        unsaved[session.id] = nil
        unlink(path(for: key))
    }

    /// A stored session that could not be restored (its type changed): moved aside, reported.
    func discard(key: String, because reason: String) {
        moveAside(path(for: key), because: reason)
    }

    // MARK: Files

    private func write(_ session: Session) {
        guard let key = session.key else { return }
        let record: JSONValue = [
            "format": .string(Self.format), "key": .string(key), "type": .string(session.type.name),
            "schemaHash": .string(session.type.schemaHash), "revision": .int(session.revision),
            "fields": .object(session.fieldValues()),
        ]
        let path = self.path(for: key)
        let temporary = path + ".tmp"
        var bytes = JSONWriter.bytes(record)
        bytes.append(UInt8(ascii: "\n"))
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return report("cannot write \(temporary)") }
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let count = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return false }
                offset += count
            }
            return true
        }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            return report("cannot write \(path)")
        }
        syncDirectory()
    }

    private func syncDirectory() {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    private func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
            if bytes.count > 64 << 20 { break }  // no stored form is this large: a foreign file
        }
        return bytes
    }

    private func moveAside(_ path: String, because reason: String) {
        rename(path, path + ".corrupt")
        report("moved \(path) aside to \(path).corrupt: \(reason)")
    }

    private func report(_ message: String) {
        StandardStreams.log("binderyd: error: --state: \(message)")
    }

    /// The file of a key: named by two FNV-1a hashes of its bytes, never by the key itself.
    func path(for key: String) -> String {
        func fnv(_ basis: UInt64) -> String {
            var hash = basis
            for byte in key.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
            let digits = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return directory + "/session-" + fnv(0xCBF2_9CE4_8422_2325) + fnv(0x84222325_CBF29CE4) + ".json"
    }

    struct StoreError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
