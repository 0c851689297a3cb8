import JSONRPC
import Synchronization

/// The request on whose behalf the current code runs, so a change can name it as its `cause` —
/// only until that request is answered.
///
/// The server binds a ``RequestScope`` while handling a request; tasks started meanwhile inherit it
/// (a command's `Task {}`, a debounce, a stream started at open). The server closes the scope when
/// it answers, so what those tasks change later carries no cause: a change carries the id of the
/// request whose handling made it, and only until that request is answered (protocol.md, "cause").
public enum ChangeCause {
    @TaskLocal public static var scope: RequestScope?

    /// The id of the request the current code runs for, while that request is unanswered.
    public static var current: RequestID? { scope?.openID }

    /// Which client sent ``current``, when a host serves several (`binderyd --listen`): request ids
    /// are each client's own, so a cause means something only to the client it came from. Nil for
    /// a host with one client, and once the request is answered.
    public static var origin: Int? { scope?.openOrigin }
}

/// One request while it is handled: its id and client, and whether it has been answered.
///
/// Made and closed on the main actor by the server; read from any thread (a view model written
/// from another thread names the scope its task inherited), hence the atomic flag. `id` and
/// `origin` change only while the scope is the server's alone (``isKnownUniquelyReferenced``), so
/// that a request that starts no task reuses the last one instead of allocating.
public final class RequestScope: @unchecked Sendable {
    public private(set) var id: RequestID
    public private(set) var origin: Int?
    private let answered = Atomic<Bool>(false)

    public init(id: RequestID, origin: Int? = nil) {
        self.id = id
        self.origin = origin
    }

    /// The id, while the request is unanswered.
    public var openID: RequestID? { answered.load(ordering: .acquiring) ? nil : id }
    /// The client, while the request is unanswered.
    public var openOrigin: Int? { answered.load(ordering: .acquiring) ? nil : origin }
    public var isOpen: Bool { !answered.load(ordering: .acquiring) }

    /// Called when the request's response is written (or queued in its batch): from then on, what
    /// code running for it changes carries no cause.
    public func close() {
        answered.store(true, ordering: .releasing)
    }

    /// A scope for the next request: `scope` itself when nothing else holds it (no task kept it),
    /// reopened for `id`; else a new one.
    public static func reusing(_ scope: inout RequestScope, for id: RequestID, origin: Int?) -> RequestScope {
        if isKnownUniquelyReferenced(&scope) {
            scope.id = id
            scope.origin = origin
            scope.answered.store(false, ordering: .relaxed)
        } else {
            scope = RequestScope(id: id, origin: origin)
        }
        return scope
    }
}
