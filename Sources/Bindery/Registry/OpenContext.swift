/// What a view model's factory receives when a client opens a session: the `args` of
/// `session/open`, the daemon's dependencies, and a way to run work for the session's lifetime.
@MainActor
public final class OpenContext {
    /// The `args` object of the request; empty when the client sent none.
    public let arguments: JSONObject
    public let dependencies: Dependencies
    /// Tasks started with ``task(_:)``, handed to the session, which cancels them when it closes.
    private(set) var tasks: [Task<Void, Never>] = []

    public init(arguments: JSONObject = JSONObject(), dependencies: Dependencies = .live()) {
        self.arguments = arguments
        self.dependencies = dependencies
    }

    /// The argument `name` decoded as `Value`; throws an ``OpenError`` naming it when it is missing or
    /// of the wrong type. A missing argument reads as null, so optional arguments may be left out.
    public func argument<Value: BinderyValue>(_ name: String, as type: Value.Type = Value.self) throws -> Value {
        do {
            return try Value(jsonValue: arguments[name] ?? .null)
        } catch {
            throw OpenError("argument \"\(name)\": \(error)", data: ["argument": name])
        }
    }

    /// The argument `name` decoded as `Value`, or nil when it is missing or null; throws an
    /// ``OpenError`` naming it when it is there with the wrong type.
    public func argumentIfPresent<Value: BinderyValue>(_ name: String, as type: Value.Type = Value.self) throws -> Value? {
        guard let value = arguments[name], value != .null else { return nil }
        return try argument(name, as: Value.self)
    }

    /// Runs `body` for as long as the session is open, like SwiftUI's `.task` for as long as a view
    /// is: closing the session cancels it. Its changes carry no `cause`: no request made them.
    public func task(_ body: @escaping @MainActor () async -> Void) {
        let task = ChangeCause.$scope.withValue(nil) {
            if let clock = dependencies.clock as? VirtualClock { return clock.run(body) }
            return Task { @MainActor in await body() }
        }
        tasks.append(task)
    }
}

/// Why a session could not be opened; the factory may throw it with its own message and data.
///
/// ```swift
/// throw OpenError("unknown element symbol \"Xx\"", data: UnknownSymbol(symbol: "Xx", known: symbols))
/// ```
public struct OpenError: Error, Sendable {
    public var message: String
    /// What the error's `data` member carries: any `Encodable` value, coded as JSON.
    public var data: JSONValue?

    public init(_ message: String) {
        self.message = message
    }

    /// - Parameters:
    ///   - message: what the client is told, after "Could not open TYPE: ".
    ///   - data: machine-readable details, sent as the error's `data` (any `Encodable`).
    public init<Data: Encodable>(_ message: String, data: Data) {
        self.message = message
        self.data = try? JSONValueEncoder().encode(data)
    }
}

/// What a command may throw to fail with a message and machine-readable detail of its own choosing.
/// Any other error fails the command too, described by `String(describing:)`.
///
/// ```swift
/// throw CommandError("The user API rejected Mallory", detail: Rejection(reason: "rejected"))
/// ```
public struct CommandError: Error, Sendable {
    public var message: String
    /// What the error's `data.detail` member carries: any `Encodable` value, coded as JSON.
    public var detail: JSONValue?

    public init(_ message: String) {
        self.message = message
    }

    /// - Parameters:
    ///   - message: what the client is told, after "Command "NAME" of TYPE failed: ".
    ///   - detail: machine-readable details, sent as the error's `data.detail` (any `Encodable`).
    public init<Detail: Encodable>(_ message: String, detail: Detail) {
        self.message = message
        self.detail = try? JSONValueEncoder().encode(detail)
    }
}
