/// The request on whose behalf the current code runs, so a change can name it as its `cause`.
///
/// The server binds it while handling a request, and an async command keeps it for its whole run;
/// a timer or other spontaneous change runs without one.
public enum ChangeCause {
    @TaskLocal public static var current: RequestID?
    /// Which client sent ``current``, when a host serves several (`binderyd --listen`): request ids
    /// are each client's own, so a cause means something only to the client it came from. Nil for
    /// a host with one client.
    @TaskLocal public static var origin: Int?
}
