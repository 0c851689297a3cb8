#if canImport(Glibc)
import Glibc
#endif

/// Where the per-user daemon keeps keyed sessions (`--state`) when a client started it and no
/// `--state` was given: the user's state directory (XDG Base Directory), one folder per socket
/// path — `$XDG_STATE_HOME/bindery/sessions/HASH` (`~/.local/state/…` when the variable is unset),
/// HASH the FNV-1a of the socket's path, so daemons on other paths (a test's own runtime
/// directory) never read each other's forms. State outlives a logout, unlike the runtime directory.
extension SocketPlace {
    /// Whether this is the place `auto` names (with this process's environment): the daemon whose
    /// keyed forms survive its crash. An explicit path keeps nothing unless `--state` says where.
    var isAuto: Bool { path == SocketPlace("auto").path }

    var defaultStateDirectory: String {
        let base: String
        if let state = environment("XDG_STATE_HOME"), state.hasPrefix("/") {
            base = state
        } else if let home = environment("HOME"), home.hasPrefix("/") {
            base = home + "/.local/state"
        } else {
            return directory + "/sessions"  // no home to speak of: beside the socket, the user's alone
        }
        return base + "/bindery/sessions/" + Self.fnv1a(path)
    }

    /// `--state` and the default directory, for a daemon started on `auto` without one: the
    /// directory's parents are created (mode 0700, as the XDG spec asks) so the daemon can make it.
    func defaultStateArguments(given arguments: [String]) -> [String] {
        guard isAuto, !arguments.contains("--state") else { return [] }
        let directory = defaultStateDirectory
        var parent = ""
        for component in directory.split(separator: "/").dropLast() {
            parent += "/" + component
            _ = mkdir(parent, 0o700)  // EEXIST for most; SessionStore reports what it cannot write
        }
        return ["--state", directory]
    }

    private func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
