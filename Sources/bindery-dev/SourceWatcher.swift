import Dispatch
import Glibc
import JSONRPC

/// Watches a package's sources with inotify and says when a `.swift` file (`Package.swift`
/// included) was saved, created by a rename, or deleted.
///
/// Every folder under the package is watched except hidden ones (`.build`, `.git`, `.swiftpm`)
/// and `node_modules`; folders created later are watched as they appear. Editors save in many
/// ways (write in place, write a temporary and rename it over, move the old file to a backup
/// first), and each of them ends in one of the events watched here: `IN_CLOSE_WRITE`,
/// `IN_MOVED_TO`, `IN_MOVED_FROM` or `IN_DELETE` of a `.swift` name. The watch table belongs to the
/// watcher's thread; ``start(onChange:)`` calls back on the main actor.
final class SourceWatcher: @unchecked Sendable {
    private let root: String
    private let descriptor: Int32
    /// Watch descriptor -> folder path. Only the watcher's thread touches it after `start`.
    private var folders: [Int32: String] = [:]

    init?(root: String) {
        self.root = root
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        if descriptor < 0 { return nil }
    }

    /// Watches the tree and calls `onChange` with the path of each change, from the watcher's thread.
    func start(onChange: @escaping @Sendable (String) -> Void) {
        watchTree(root)
        startThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return }
                var offset = 0
                while offset + 16 <= count {
                    let (wd, mask, nameLength) = buffer.withUnsafeBytes { raw in
                        (raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                         raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                         Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                    }
                    let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + nameLength)]
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    offset += 16 + nameLength
                    guard let folder = folders[wd] else { continue }
                    let path = folder + "/" + name
                    if mask & UInt32(IN_ISDIR) != 0 {
                        if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, Self.isWatched(name) { watchTree(path) }
                        continue
                    }
                    if mask & UInt32(IN_IGNORED) != 0 { folders[wd] = nil; continue }
                    if name.hasSuffix(".swift") { onChange(path) }
                }
            }
        }
    }

    private static func isWatched(_ name: String) -> Bool {
        !name.hasPrefix(".") && name != "node_modules"
    }

    /// Adds a watch on `folder` and every folder below it that is not skipped.
    private func watchTree(_ folder: String) {
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_ONLYDIR)
        let wd = inotify_add_watch(descriptor, folder, mask)
        guard wd >= 0 else { return }
        folders[wd] = folder
        guard let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name != ".", name != "..", Self.isWatched(name) else { continue }
            if entry.pointee.d_type == UInt8(DT_DIR) { watchTree(folder + "/" + name) }
        }
    }
}
