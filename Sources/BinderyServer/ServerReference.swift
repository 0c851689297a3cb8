/// A reference to a server that does not keep it alive and reads nil once the server is gone: what
/// a closure that may outlive its server holds (a command's completion, the connection's handler).
///
/// Not `weak`: an object referenced weakly keeps its reference counts in a side table, and each of
/// the dozen retains of a server per request then takes the runtime's slow path (measured: about
/// 400 instructions per `setField`). The server clears it when it goes (`Server.deinit`).
@MainActor
final class ServerReference {
    nonisolated(unsafe) unowned(unsafe) var server: Server?

    init(_ server: Server) { self.server = server }
}
