import JSONRPC

/// One session as the client knows it: what it was opened with (to open it again in a new daemon)
/// and where it lives now. What the client was told of it (its state, revision and display) is
/// ``Proxy/mirror``'s. Owned by the main actor, in ``Proxy``.
struct SessionRecord {
    /// The id the client knows; it never changes, whichever daemon holds the session.
    let id: Int
    /// The registered type's name; for a child view model, its Swift type's (as `children` names it).
    let type: String
    /// For a child view model, the client's id of the session whose value shows it.
    var parent: Int?
    let key: String?
    let args: JSONValue?
    /// The members the client observes; nil for all of them.
    var observe: [String]?
    /// The session's id in the current daemon.
    var daemonID: Int
    /// Added to the daemon's revisions: revisions go on from where they were across a reload.
    var offset: Int
}
