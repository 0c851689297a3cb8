import Bindery

extension Server {
    /// Routes a request to its method. Every method of the protocol is listed here. `batch` is the
    /// batch the request is an element of, if any.
    func handleRequest(_ method: String, _ params: RequestParams, id: RequestID?, batch: BatchReply?) throws(RPCError) -> Reply {
        // The hot methods first: a switch over strings compares them in order.
        switch method {
        case "setField": return .revision(try setField(Params(params)))
        case "invoke": return try invoke(Params(params), id: id, batch: batch)
        case "initialize": return .result(try initialize(Params(params)))
        case "shutdown": return .result(try shutdown(Params(params)))
        case "viewModels/describe": return .result(try describe(Params(params)))
        case "session/open": return .result(try openSession(Params(params)))
        case "session/close": return .result(try closeSession(Params(params)))
        case "session/state": return .result(try sessionState(Params(params)))
        case "session/observe": return .result(try observe(Params(params)))
        case "session/snapshot": return .result(try snapshot(Params(params)))
        case "session/undo": return .result(try undo(Params(params)))
        case "session/redo": return .result(try redo(Params(params)))
        case "clock/advance": return try advanceClock(Params(params), id: id, inBatch: batch != nil)
        case "exit", "$/cancelRequest":
            throw .invalidRequest("\"\(method)\" is a notification: send it without an id")
        default: throw .methodNotFound(method)
        }
    }

    /// Notifications are never answered; unknown ones (LSP's `initialized`, `$/setTrace`, ...) are ignored.
    func handleNotification(_ method: String, _ params: JSONValue?) {
        switch method {
        case "exit": exitNotification()
        case "$/cancelRequest": cancelRequest(params)
        default: break
        }
    }
}
