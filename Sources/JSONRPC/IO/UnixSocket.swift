#if canImport(Glibc)
import Glibc
#endif

/// The few Unix-domain socket calls `binderyd --listen` and `--remote` make, with errors in words.
/// Stream sockets only, always close-on-exec. No TCP anywhere.
public enum UnixSocket {
    /// Why a call failed: what was tried, on which path, and `strerror`.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// The `errno` of the failed call.
        public let code: Int32
        init(_ what: String, _ path: String, _ code: Int32 = errno) {
            description = "\(what) \(path): \(String(cString: strerror(code)))"
            self.code = code
        }
    }

    /// The longest path a `sockaddr_un` holds (107 bytes on Linux, the terminating NUL aside).
    public static let maximumPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Binds a new socket at `path` and listens on it; the socket file is created readable and
    /// writable by its owner only (mode 0600: the umask is narrowed around `bind`, then the mode
    /// set again). The path must not exist. Returns the non-blocking listening descriptor.
    ///
    /// The socket is bound under a name beside `path` (`path.new`) and renamed to `path` once it
    /// listens, so a client that finds `path` never meets a socket not listening yet (connect
    /// answers ECONNREFUSED in that window: a test that waited for the file met it under load). The
    /// caller owns the directory (its lock file held): a `path.new` there is a leftover of its own.
    public static func listen(at path: String, backlog: Int32 = 128) throws(Failure) -> Int32 {
        let staging = path + ".new"
        let bindPath = staging.utf8.count <= maximumPathLength ? staging : path  // a path at the limit binds in place
        if bindPath != path { unlink(bindPath) }
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("cannot create a socket for", path) }
        var address = try self.address(bindPath)
        let previous = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        let code = errno
        umask(previous)
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw Failure("cannot bind", bindPath, code)
        }
        chmod(bindPath, 0o600)
        guard Glibc.listen(descriptor, backlog) == 0 else {
            let code = errno
            Glibc.close(descriptor)
            unlink(bindPath)
            throw Failure("cannot listen on", bindPath, code)
        }
        if bindPath != path, rename(bindPath, path) != 0 {
            let code = errno
            Glibc.close(descriptor)
            unlink(bindPath)
            throw Failure("cannot move the listening socket to", path, code)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return descriptor
    }

    /// Connects to the socket at `path`; returns a blocking descriptor.
    public static func connect(to path: String) throws(Failure) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw Failure("cannot create a socket for", path) }
        var address = try self.address(path)
        var result: Int32
        repeat {
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
        } while result != 0 && errno == EINTR
        guard result == 0 else {
            let code = errno
            Glibc.close(descriptor)
            throw Failure("cannot connect to", path, code)
        }
        return descriptor
    }

    /// Accepts one pending connection (close-on-exec), or nil when none waits. Throws when one
    /// waits but cannot be accepted: `EMFILE`/`ENFILE` (out of descriptors) and the like, which
    /// leave the listening socket readable — a caller that polls it again at once would spin.
    public static func accept(_ listening: Int32) throws(Failure) -> Int32? {
        while true {
            let descriptor = Glibc.accept(listening, nil, nil)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
                return descriptor
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw Failure("cannot accept a connection on", "the listening socket", errno)
            }
        }
    }

    /// Whether `code` says the process (or the system) is out of descriptors or buffers.
    public static func isOutOfResources(_ code: Int32) -> Bool {
        code == EMFILE || code == ENFILE || code == ENOBUFS || code == ENOMEM
    }

    /// The user id of the process at the other end (`SO_PEERCRED`: as it was when it connected).
    public static func peerUserID(_ descriptor: Int32) -> uid_t? {
        peerCredentials(descriptor)?.uid
    }

    /// The process id of the process at the other end (`SO_PEERCRED`: the one that listened or
    /// connected), or nil.
    public static func peerProcessID(_ descriptor: Int32) -> pid_t? {
        peerCredentials(descriptor)?.pid
    }

    private static func peerCredentials(_ descriptor: Int32) -> (pid: Int32, uid: UInt32, gid: UInt32)? {
        // `struct ucred { pid_t pid; uid_t uid; gid_t gid; }` (Glibc shows it only with _GNU_SOURCE).
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0,
              Int(length) == MemoryLayout<(Int32, UInt32, UInt32)>.size else { return nil }
        return credentials
    }

    private static func address(_ path: String) throws(Failure) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw Failure("the socket path is empty, has a NUL, or is longer than \(maximumPathLength) bytes:", path, ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        }
        return address
    }
}
