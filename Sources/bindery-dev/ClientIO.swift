import Dispatch
import Glibc
import JSONRPC

/// The client's side: bindery-dev's own stdin and stdout, where it speaks the daemon's protocol.
///
/// A reader thread cuts stdin into frames (either framing, detected as the daemon detects it) and
/// hands them to the main actor in order; the main actor writes replies to stdout in the client's
/// framing, blocking when the client does not read (as the daemon does). bindery-dev's own logs go
/// to stderr only.
@MainActor
final class ClientIO {
    private var framing: Framing = .newlineDelimited
    private var output: [UInt8] = []
    /// `--record FILE`: sees everything read and written here.
    var recorder: Recorder?

    /// Starts reading stdin: `onFrames` gets each read's frames on the main actor, `onEnd` the end.
    func start(onFrames: @escaping @MainActor ([FrameEvent]) -> Void, onEnd: @escaping @MainActor () -> Void) {
        let decoder = DecoderBox()
        readToEnd(0, onChunk: { chunk in
            var events: [FrameEvent] = []
            decoder.decoder.append(chunk)
            while let event = decoder.decoder.next() { events.append(event) }
            let framing = decoder.decoder.framing
            guard !events.isEmpty else { return }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if let framing { self.framing = framing }
                    self.recorder?.received(events, framing: self.framing)
                    onFrames(events)
                }
            }
        }, onEnd: {
            var events: [FrameEvent] = []
            if let last = decoder.decoder.finish() { events.append(last) }
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    if !events.isEmpty { self.recorder?.received(events, framing: self.framing) }
                    if !events.isEmpty { onFrames(events) }
                    onEnd()
                }
            }
        })
    }

    /// Queues `message` for the client; ``flush()`` writes what is queued.
    func send(_ message: JSONValue) {
        recorder?.sent(message, framing: framing)
        framing.frame(message.bytes, into: &output)
        if output.count >= 65536 { flush() }
    }

    /// Writes everything queued to stdout. A client that closed its end ends bindery-dev.
    func flush() {
        guard !output.isEmpty else { return }
        let ok = output.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(1, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
        output.removeAll(keepingCapacity: true)
        if !ok { exit(0) }
    }
}

/// The frame decoder, owned by the stdin reader thread alone.
private final class DecoderBox: @unchecked Sendable {
    var decoder = FrameDecoder()
}
