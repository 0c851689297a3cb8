#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// What a client of a shared daemon checks before it sends a byte: that the socket's directory is
/// the user's and writable by nobody else, that the socket in it is the user's, and that the
/// process listening is the user's (`SO_PEERCRED`). Another user who made the directory first (say
/// `/tmp/bindery-UID/` with no `XDG_RUNTIME_DIR`) and listens there could otherwise read and relay
/// every byte, a typed password included.
extension SocketPlace {
    /// The directory as it stands (nothing created): a directory, not a link, this user's, not
    /// writable by group or others. Throws the reason in words, naming the directory.
    func checkDirectory() throws(PlaceError) {
        var status = stat()
        guard lstat(directory, &status) == 0 else {
            throw PlaceError("cannot examine \(directory): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw PlaceError("\(directory) is not a directory (a link is not accepted)")
        }
        guard status.st_uid == geteuid() else {
            throw PlaceError("\(directory) belongs to user \(status.st_uid), not to this user (\(geteuid())): refusing to use it")
        }
        guard status.st_mode & 0o022 == 0 else {
            throw PlaceError("\(directory) is writable by others (mode \(String(status.st_mode & 0o777, radix: 8))): "
                             + "refusing to put a socket there; chmod go-w it or choose another directory")
        }
    }

    /// Whether the directory exists at all (a client that finds none starts a daemon).
    var directoryExists: Bool {
        var status = stat()
        return lstat(directory, &status) == 0
    }

    /// Checks a connection to `path` before anything is sent on it: the directory, the socket file
    /// (a socket, this user's) and the listening process's user id. Throws, naming the path.
    func verify(connected descriptor: Int32) throws(PlaceError) {
        do {
            try checkDirectory()
        } catch {
            throw PlaceError("refusing to talk to \(path): \(error.description)")
        }
        var status = stat()
        guard lstat(path, &status) == 0 else {
            throw PlaceError("refusing to talk to \(path): cannot examine it: \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFSOCK else {
            throw PlaceError("refusing to talk to \(path): it is not a socket")
        }
        guard status.st_uid == geteuid() else {
            throw PlaceError("refusing to talk to \(path): the socket belongs to user \(status.st_uid), "
                             + "not to this user (\(geteuid()))")
        }
        guard let peer = UnixSocket.peerUserID(descriptor) else {
            throw PlaceError("refusing to talk to \(path): cannot learn who listens there (SO_PEERCRED)")
        }
        guard peer == geteuid() else {
            throw PlaceError("refusing to talk to \(path): the process listening there runs as user \(peer), "
                             + "not as this user (\(geteuid())); another user may be trying to read this session")
        }
    }
}
