#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes stdout the protocol's alone, the way sourcekit-lsp does at start-up.
public enum StandardStreams {
    /// Returns a private duplicate of the real stdout for protocol frames, then points file
    /// descriptor 1 at stderr, so a stray `print` anywhere in the process lands in the log instead of
    /// corrupting the stream. Also ignores SIGPIPE: a closed stdout then shows up as a write error
    /// (EPIPE) that ends the process cleanly, not as a signal that kills it.
    public static func takeStdoutForProtocol() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let protocolOutput = dup(STDOUT_FILENO)
        precondition(protocolOutput >= 0, "dup(stdout) failed: errno \(errno)")
        _ = dup2(STDERR_FILENO, STDOUT_FILENO)
        return protocolOutput
    }

    /// Writes one line to stderr, unbuffered: the daemon's log.
    public static func log(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(STDERR_FILENO, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { if errno == EINTR { continue } else { return } }
                offset += written
            }
        }
    }
}
