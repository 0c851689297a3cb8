import Bindery

/// The methods about the server itself: `initialize`, `shutdown`, `viewModels/describe`.
extension Server {
    /// The protocol revision a client can check; bumped on any incompatible change to protocol.md.
    static let protocolVersion = 1

    /// `initialize`: who we are and every view model type we serve. Optional: a script may start
    /// with `session/open`.
    func initialize(_ params: Params) throws(RPCError) -> JSONValue {
        var result: JSONObject = [
            "protocolVersion": .int(Server.protocolVersion),
            "serverInfo": ["name": .string(serverInfo.name), "version": .string(serverInfo.version)],
            "viewModels": .array(table.registry.types.map(\.schema)),
        ]
        // Capabilities are negotiated only with a client that sends some: the answer lists those
        // the daemon agreed to, and a client that sends none sees nothing change.
        if case .object(let asked)? = params["capabilities"] {
            var agreed = JSONObject()
            if asked["splices"] == .bool(true) {
                wantsSplices = true
                // Collections splice once any client can take splices; the others get whole lists.
                table.splicesEnabled = true
                agreed.append("splices", true)
            }
            if asked["display"] == .bool(true) {
                wantsDisplay = true
                agreed.append("display", true)
            }
            // Agreed only on the virtual clock, so that a face knows to offer moving it.
            if asked["clock"] == .bool(true), dependencies.clock is VirtualClock {
                agreed.append("clock", true)
            }
            result.append("capabilities", .object(agreed))
        }
        return .object(result)
    }

    /// `shutdown`: from now on every request but `exit` is refused.
    func shutdown(_ params: Params) throws(RPCError) -> JSONValue {
        isShutDown = true
        return .null
    }

    /// `viewModels/describe` {type?}: the schema of one type, or of all.
    func describe(_ params: Params) throws(RPCError) -> JSONValue {
        let registry = table.registry
        guard let name = try params.optionalString("type") else {
            return ["viewModels": .array(registry.types.map(\.schema))]
        }
        guard let type = registry.type(named: name) else { throw .unknownType(name, known: registry.names) }
        return ["viewModels": [type.schema]]
    }
}
