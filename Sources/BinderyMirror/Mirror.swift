import JSONRPC

/// A client's copy of what the daemon told it, folded by protocol.md's "Client mirror" rules: per
/// session its `type`, `revision`, `state` and (with the `display` capability) `display`; the
/// `setField`s sent and not answered yet; and the sessions out of step, which wait for their
/// `session/state`. `Tests/ClientMirror/cases/*.json` pins it case by case (`MirrorCorpusTests`).
///
/// ```swift
/// var mirror = Mirror()
/// mirror.take(1, Mirror.Session(type: "email", revision: 0, state: ["email": ""]))
/// mirror.wrote(id: 2, session: 1, field: "email", value: "ada@example.com")
/// mirror.receive(["jsonrpc": "2.0", "id": 2, "result": ["revision": 0]])
/// mirror.sessions[1]?.state["email"]  // "ada@example.com": the daemon does not echo a write
/// ```
///
/// A value type: its owner says which thread it lives on (bindery-dev's proxy: the main actor).
public struct Mirror: Sendable {
    /// One session as the client was told it.
    public struct Session: Sendable, Equatable {
        public var type: String
        public var revision: Int
        public var state: JSONObject
        public var display: JSONObject?

        public init(type: String, revision: Int, state: JSONObject, display: JSONObject? = nil) {
            self.type = type
            self.revision = revision
            self.state = state
            self.display = display
        }

        /// A `children` entry (`{type, revision, state, display?}`) or a `session/open` or
        /// `session/state` result, as a session.
        public init(_ json: JSONValue) {
            self.init(type: json["type"]?.stringValue ?? "", revision: json["revision"]?.intValue ?? 0,
                      state: json["state"]?.objectValue ?? JSONObject(), display: json["display"]?.objectValue)
        }
    }

    /// A `setField` sent and not answered yet.
    public struct PendingWrite: Sendable, Equatable {
        /// The request's id, as the responses and `didChange`s' `cause` name it.
        public var id: JSONValue
        public var session: Int
        public var field: String
        public var value: JSONValue
        /// A `didChange` this write caused carried the field: the model stored that value instead.
        public var told = false

        public init(id: JSONValue, session: Int, field: String, value: JSONValue) {
            self.id = id
            self.session = session
            self.field = field
            self.value = value
        }
    }

    public private(set) var sessions: [Int: Session] = [:]
    public private(set) var pending: [PendingWrite] = []
    /// Sessions whose `didChange`s are ignored until their `session/state` is taken (``take(_:_:)``).
    public private(set) var outOfStep: Set<Int> = []

    public init() {}

    // MARK: - What the client learns whole

    /// Holds `session` as `id` whole, in step: a `session/open` or `session/state` result, or a
    /// `children` entry.
    public mutating func take(_ id: Int, _ session: Session) {
        sessions[id] = session
        outOfStep.remove(id)
    }

    /// Holds every entry of a `children` object (`{"<id>": {type, revision, state, display?}}`).
    public mutating func take(children: JSONObject) {
        for entry in children.members {
            if let id = Int(entry.key) { take(id, Session(entry.value)) }
        }
    }

    /// Forgets a session: closed, detached, or not the client's any longer.
    public mutating func drop(_ id: Int) {
        sessions[id] = nil
        outOfStep.remove(id)
    }

    /// Notes a `setField` the client sent.
    public mutating func wrote(id: JSONValue, session: Int, field: String, value: JSONValue) {
        pending.append(PendingWrite(id: id, session: session, field: field, value: value))
    }

    // MARK: - What the daemon sends

    /// A message the daemon wrote: a `didChange` is folded, a response answers its pending write.
    public mutating func receive(_ message: JSONValue) {
        if message["method"] == .string("didChange") {
            if let params = message["params"]?.objectValue { didChange(params) }
        } else if let id = message["id"] {
            answered(id, failed: message["error"] != nil, revision: message["result"]?["revision"]?.intValue)
        }
    }

    /// Folds a `didChange` (rules 1 to 7 of "Client mirror").
    public mutating func didChange(_ params: JSONObject) {
        guard let id = params["session"]?.intValue, var session = sessions[id], !outOfStep.contains(id) else { return }
        guard params["revision"]?.intValue == session.revision + 1 else {
            outOfStep.insert(id)
            return
        }
        let cause = params["cause"]
        let writer = pending.firstIndex { cause != nil && $0.id == cause && $0.session == id }
        for member in params["changes"]?.objectValue?.members ?? [] {
            session.state[member.key] = member.value
            if let writer, pending[writer].field == member.key { pending[writer].told = true }
        }
        for member in params["splices"]?.objectValue?.members ?? [] {
            // A splice caused by this client's write to the member edits the value it wrote.
            let own = writer.flatMap { pending[$0].field == member.key ? $0 : nil }
            let base = own.map { pending[$0].value } ?? session.state[member.key]
            guard let base, let spliced = Self.splice(base, member.value) else {
                outOfStep.insert(id)
                return
            }
            session.state[member.key] = spliced
            if let own { pending[own].told = true }
        }
        if let display = params["display"]?.objectValue {
            var held = session.display ?? JSONObject()
            for member in display.members { held[member.key] = member.value }
            session.display = held
        }
        session.revision += 1
        sessions[id] = session
        if let children = params["children"]?.objectValue { take(children: children) }
        for child in params["detached"]?.arrayValue ?? [] {
            if let child = child.intValue { drop(child) }
        }
    }

    /// The answer to request `id`: a write answered without error holds the value written unless
    /// its own `didChange` carried the field; a refused one changed nothing. A `revision` the
    /// session has not reached means the write's `didChange` was lost.
    public mutating func answered(_ id: JSONValue, failed: Bool, revision: Int?) {
        guard let index = pending.firstIndex(where: { $0.id == id }) else { return }
        let write = pending.remove(at: index)
        guard !failed, var session = sessions[write.session], !outOfStep.contains(write.session) else { return }
        if !write.told, session.state[write.field] != nil {
            session.state[write.field] = write.value
            sessions[write.session] = session
        }
        if let revision, revision > session.revision { outOfStep.insert(write.session) }
    }

    // MARK: - What a face shows

    /// A session's state with each field a write is pending to showing the last value written
    /// (what the person typed), until its answer; nil for a session not held.
    public func shown(_ id: Int) -> JSONObject? {
        guard var state = sessions[id]?.state else { return nil }
        for write in pending where write.session == id { state[write.field] = write.value }
        return state
    }

    /// The list a splice (`{ops: [{at, delete, insert}], length}`) makes of `value`, each op on the
    /// result of the one before; nil when it does not fit (not a list, an op past the end, a length
    /// that disagrees).
    static func splice(_ value: JSONValue, _ splice: JSONValue) -> JSONValue? {
        guard case .array(var list) = value else { return nil }
        for op in splice["ops"]?.arrayValue ?? [] {
            guard let at = op["at"]?.intValue, let delete = op["delete"]?.intValue,
                  at >= 0, delete >= 0, at + delete <= list.count else { return nil }
            list.replaceSubrange(at..<(at + delete), with: op["insert"]?.arrayValue ?? [])
        }
        return splice["length"]?.intValue == list.count ? .array(list) : nil
    }
}

extension JSONValue {
    fileprivate var intValue: Int? {
        if case .int(let value) = self { return value }
        return nil
    }
}
