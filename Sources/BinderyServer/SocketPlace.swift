#if canImport(Glibc)
import Glibc
#endif
import JSONRPC

/// Where a shared daemon's socket lives, and the checks that make it the user's alone.
///
/// `auto` is `$XDG_RUNTIME_DIR/bindery/daemon.sock` when that variable names an absolute path,
/// else `/tmp/bindery-UID/daemon.sock`. Beside the socket: `daemon.sock.lock` (held by the
/// daemon for its life: two daemons never listen on one path), `daemon.sock.args` (the options
/// the daemon was started with), `daemon.sock.log` (the stderr of a daemon `--remote` started) and
/// `daemon.sock.exit` (how that daemon ended, written by its ``DaemonSupervisor``).
/// The directory must be the user's and not writable by group or others; `auto`'s is created
/// (mode 0700) when missing, and so is the last directory of an explicit path.
struct SocketPlace {
    let path: String
    let directory: String

    var lockPath: String { path + ".lock" }
    var argumentsPath: String { path + ".args" }
    var logPath: String { path + ".log" }
    var exitPath: String { path + ".exit" }
    /// `auto`, or an explicit path (made absolute against the working directory).
    init(_ spelled: String) {
        var path = spelled
        if spelled == "auto" {
            if let runtime = getenv("XDG_RUNTIME_DIR").map({ String(cString: $0) }), runtime.hasPrefix("/") {
                path = runtime + "/bindery/daemon.sock"
            } else {
                path = "/tmp/bindery-\(getuid())/daemon.sock"
            }
        } else if !spelled.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            if getcwd(&buffer, buffer.count) != nil {
                path = String(cString: buffer) + "/" + spelled
            }
        }
        self.path = path
        let slash = path.lastIndex(of: "/")!
        directory = slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// Creates the directory if missing (0700), then checks it: a directory (not a link), owned by
    /// this user, writable by nobody else. Throws the reason in words.
    func prepareDirectory() throws(PlaceError) {
        if mkdir(directory, 0o700) != 0, errno != EEXIST {
            throw PlaceError("cannot create \(directory): \(String(cString: strerror(errno)))")
        }
        try checkDirectory()
    }

    struct PlaceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
