import BinderyMirror
import Dispatch
import Glibc
import JSONRPC

/// The middle of bindery-dev: the client on one side, the daemon currently serving it on the
/// other, and every message between them rewritten in passing so that a reload does not show.
///
/// The client sees session ids of bindery-dev's own (counted from 1, never reused) and revisions
/// that go on across reloads; each daemon sees its own. Requests are forwarded under ids of
/// bindery-dev's own (``Daemon/takeID()``), so its own requests to a daemon never collide with the
/// client's. Meanwhile it keeps what the client was told of every session, folded by the client
/// mirror's rules (``mirror``), which is what a reload needs to tell the client what changed.
///
/// Threads: all of it is the main actor's; readers hand messages over in order. This file holds
/// the state and the daemon's life; `Proxy+FromClient.swift` and `Proxy+FromDaemon.swift` the two
/// directions.
@MainActor
final class Proxy {
    let client: ClientIO
    /// The daemon serving the client; nil before the first build succeeds, or after it died.
    private(set) var daemon: Daemon?
    /// A new daemon being moved into during a reload: its messages go to `candidateSent`.
    var candidate: Daemon?
    var candidateSent: ((JSONValue) -> Void)?
    /// Why there is no daemon, when the first build failed or the daemon died; requests are
    /// answered with this until a build succeeds.
    var noDaemonReason: String?

    /// The sessions the client holds, by its ids: what each was opened with and where it lives.
    var sessions: [Int: SessionRecord] = [:]
    /// What the client was told of each session, in its terms (ids, revisions), children included;
    /// its pending writes are the `setField`s forwarded, under the ids they were forwarded with.
    var mirror = Mirror()
    var byDaemonID: [Int: Int] = [:]
    /// One more than the largest session id the client has been given.
    var nextSessionID = 1
    /// Sessions the current daemon opens from now on: their ids there start at `firstNewDaemonID`,
    /// and the client knows each as its id there plus `delta`. So a client that pipelines requests
    /// on a session it has just asked to open (knowing ids are counted) is understood: before any
    /// reload the ids are the daemon's own (`delta` 0).
    var firstNewDaemonID = 1
    var delta = 0

    /// A client request forwarded to the current daemon, by the id it was forwarded under.
    struct Pending {
        var clientID: RequestID?
        var method: String
        /// The client's session id, for requests on one session.
        var session: Int?
        var params: JSONObject?
        var batch: Int?
        /// Cancelled by bindery-dev because the daemon is being replaced.
        var cancelledByReload = false
    }
    var pending: [Int: Pending] = [:]
    var forwardedIDs: [RequestID: Int] = [:]
    var batches: [Int: BatchReply] = [:]
    var nextBatch = 1
    /// Called once when no forwarded request is left unanswered (see ``settle(timeout:)``).
    var onSettled: (() -> Void)?

    /// Client input that arrives while a reload switches daemons, handled once it is done.
    var holding = false
    var held: [FrameEvent] = []

    /// The client's last `initialize` params, sent again to every new daemon.
    var initializeParams: JSONValue?
    var exitRequested = false
    var clientEnded = false
    /// Runs just before bindery-dev ends (stops a build still running).
    var beforeExit: (() -> Void)?

    init(client: ClientIO) {
        self.client = client
    }

    // MARK: - The daemon

    /// Makes `daemon` the one serving the client, the sessions now being `sessions` (opened in
    /// it in order, so that its next session's id is one more than theirs).
    func install(_ daemon: Daemon, sessions: [SessionRecord], highestDaemonID: Int = 0) {
        self.daemon = daemon
        noDaemonReason = nil
        self.sessions = [:]
        byDaemonID = [:]
        for record in sessions {
            self.sessions[record.id] = record
            byDaemonID[record.daemonID] = record.id
        }
        for id in mirror.sessions.keys where self.sessions[id] == nil { mirror.drop(id) }
        firstNewDaemonID = max(sessions.map(\.daemonID).max() ?? 0, highestDaemonID) + 1
        delta = nextSessionID - firstNewDaemonID
        orphanedFrom = nil
        daemon.onExit { [weak self, weak daemon] code in
            guard let self, let daemon, self.daemon === daemon else { return }
            self.currentDaemonExited(code, summary: daemon.stderrSummary, daemon: daemon)
        }
    }

    /// The daemon that ended on its own while serving, whose sessions wait for the next build.
    private(set) var orphanedFrom: Daemon?

    /// The current daemon ended on its own (not replaced; a view model crashed, say). Requests in
    /// flight are answered with an error and the client is told (`daemon/exited`); the sessions
    /// are kept as the client holds them, and the next successful build starts a daemon and moves
    /// them into it from there (their writable fields from the client's fold).
    func currentDaemonExited(_ code: Int32, summary: String, daemon dead: Daemon) {
        daemon = nil
        if exitRequested || clientEnded {
            beforeExit?()
            exit(exitRequested ? code : Int32(0))
        }
        orphanedFrom = dead
        let reason = "the daemon exited with code \(code)" + (summary.isEmpty ? "" : ": " + summary)
        noDaemonReason = reason + "; save a source and bindery-dev starts it again, with the open sessions"
        for (id, request) in pending.sorted(by: { $0.key < $1.key }) {
            finish(id, with: OutgoingMessage.response(id: request.clientID, error: RPCError(.internalError, reason)))
        }
        client.send(notification("daemon/exited", ["code": .int(Int(code)), "message": .string(reason)]))
        client.flush()
    }

    /// The client's id of the daemon's session `daemonID`, known or to be opened.
    func clientSessionID(_ daemonID: Int) -> Int? {
        if let id = byDaemonID[daemonID] { return id }
        return daemonID >= firstNewDaemonID ? daemonID + delta : nil
    }

    // MARK: - Holding input during a switch

    func holdInput() { holding = true }

    /// Whether client input waits: during a switch, or before the first daemon has started.
    var waiting: Bool { holding || (daemon == nil && noDaemonReason == nil) }

    func releaseInput() {
        holding = false
        guard !waiting else { return }
        let events = held
        held = []
        if !events.isEmpty { clientSent(events) }
        if clientEnded { clientEndedInput() }
    }

    /// Cancels the client's commands still running on the current daemon and waits (at most
    /// `timeout`) for every forwarded request to be answered; those still unanswered then are
    /// answered here, as cancelled. What a running command sees at a reload: it is cancelled, and
    /// its `invoke` answers `-32800` saying the daemon was reloaded.
    func settle(timeout: Duration) async {
        guard let daemon, !pending.isEmpty else { return }
        for (id, request) in pending where request.method == "invoke" && !request.cancelledByReload {
            pending[id]?.cancelledByReload = true
            daemon.send(notification("$/cancelRequest", ["id": .int(id)]))
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            var resumed = false
            let resume = {
                if !resumed { resumed = true; continuation.resume() }
            }
            onSettled = resume
            let seconds = Double(timeout.components.seconds)
            DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { MainActor.assumeIsolated { resume() } }
        }
        onSettled = nil
        for (id, request) in pending.sorted(by: { $0.key < $1.key }) {
            finish(id, with: OutgoingMessage.response(id: request.clientID, error: Self.reloadCancellation))
        }
        client.flush()
    }

    static let reloadCancellation = RPCError(
        .requestCancelled, "Request cancelled: the daemon was reloaded (bindery-dev); invoke it again")

    /// Sends a notification of bindery-dev's own to the client.
    func notify(_ method: String, _ params: JSONObject) {
        client.send(notification(method, params))
        client.flush()
    }
}

extension JSONObject {
    /// The members named in `names`, in this object's order.
    func filtering(_ names: [String]) -> JSONObject {
        let keep = Set(names)
        return JSONObject(members.filter { keep.contains($0.key) })
    }
}
