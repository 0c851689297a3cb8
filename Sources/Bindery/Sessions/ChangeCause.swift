/// The request on whose behalf the current code runs, so a change can name it as its `cause`.
///
/// The server binds it while handling a request, and an async command keeps it for its whole run;
/// a timer or other spontaneous change runs without one.
public enum ChangeCause {
    @TaskLocal public static var current: RequestID?
}
