import JSONRPC

/// Plays a transcript's client side against a daemon (a ``ReplayPeer``): what BinderyTesting's
/// in-process replay and `bindery-replay` share, so both fail with the same words.
///
/// A replay compares what the client is told, in order, semantically (``JSONDifference``): member
/// order, white space and how a number is spelled do not count; a value, a member, a message too
/// many or too few do; `initialize`'s `viewModels` count only for the types the transcript uses
/// (``UsedTypes``). The client's input ends right after the last `in` line, as when recorded.
public enum Replayer {
    /// Replays `transcript` against `peer` and compares every message the daemon writes.
    public static func compare(_ transcript: Transcript, with peer: some ReplayPeer) async -> ReplayReport {
        var report = ReplayReport(transcript: transcript.name, mismatches: [])
        var requests = RequestLog()
        let used = UsedTypes(transcript)
        let lastSend = transcript.messages.lastIndex { $0.direction == .sent }
        for (index, message) in transcript.messages.enumerated() {
            switch message.direction {
            case .sent:
                requests.note(message.body)
                await peer.send(message.body)
                if index == lastSend { await peer.endInput() }
            case .received:
                let expected = requests.comparable((try? JSONParser.parse(message.body)) ?? .null, used)
                var mismatch = Mismatch(kind: .missing, step: index + 1, line: message.line,
                                        cause: requests.cause(of: expected), expected: text(message.body))
                guard let actual = await peer.next() else {
                    report.mismatches.append(mismatch)
                    report.sideNotes = await peer.sideNotes()
                    return report
                }
                guard let value = (try? JSONParser.parse(actual)).map({ requests.comparable($0, used) }) else {
                    mismatch.kind = .notJSON(text(actual))
                    report.mismatches.append(mismatch)
                    continue
                }
                // Another kind of message altogether (an answer where a didChange was recorded): shown whole.
                let sameKind = expected["method"] == value["method"] && expected["id"] == value["id"]
                let differences = sameKind ? JSONDifference.between(expected: expected, actual: value)
                    : [JSONDifference(path: "", expected: expected, actual: value)]
                if !differences.isEmpty {
                    mismatch.kind = .differs(differences)
                    report.mismatches.append(mismatch)
                }
            }
        }
        if lastSend == nil { await peer.endInput() }
        let code = await peer.exitCode()
        if code != nil, let extra = await peer.next() {
            report.mismatches.append(Mismatch(kind: .unexpected(text(extra)), step: 0, line: 0))
        }
        let expectedCode = transcript.exitCode ?? 0
        if code != expectedCode {
            report.mismatches.append(Mismatch(kind: .exitCode(expected: expectedCode, actual: code), step: 0, line: 0))
            report.sideNotes = await peer.sideNotes()
        }
        return report
    }

    /// Record mode: sends the transcript's `in` lines to `peer` and returns the transcript with the
    /// `out` lines (and exit code) the daemon writes now. After each message it takes what the
    /// daemon says before it falls quiet; an answer that comes later (an async command's, after a
    /// `clock/advance`) lands where it comes.
    public static func record(_ transcript: Transcript, with peer: some ReplayPeer) async -> Transcript {
        var messages: [Transcript.Message] = []
        let sent = transcript.messages.filter { $0.direction == .sent }
        for (index, message) in sent.enumerated() {
            messages.append(message)
            await peer.send(message.body)
            if index == sent.count - 1 { break }
            while let body = await peer.nextBeforeQuiet() { messages.append(.init(.received, body)) }
        }
        await peer.endInput()
        while let body = await peer.next() { messages.append(.init(.received, body)) }
        var recorded = transcript
        recorded.messages = messages
        if let code = await peer.exitCode(), code != 0 || transcript.exitCode != nil { recorded.exitCode = code }
        return recorded
    }

    private static func text(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.count > 300 ? text.prefix(300) + "…" : text
    }
}

extension Transcript {
    /// Whether `other` has the same messages as this, compared as a replay compares them (a
    /// recording that differs only in member order or white space is the same), and the same exit code.
    public func says(theSameAs other: Transcript) -> Bool {
        guard messages.count == other.messages.count, (exitCode ?? 0) == (other.exitCode ?? 0) else { return false }
        var requests = RequestLog()
        let used = UsedTypes(self)
        return zip(messages, other.messages).allSatisfy { mine, theirs in
            guard mine.direction == theirs.direction else { return false }
            guard let left = try? JSONParser.parse(mine.body), let right = try? JSONParser.parse(theirs.body) else {
                return mine.body == theirs.body
            }
            if mine.direction == .sent { requests.note(mine.body) }
            return JSONDifference.between(expected: requests.comparable(left, used),
                                          actual: requests.comparable(right, used)).isEmpty
        }
    }
}

/// The requests a replay has sent, by id, to say which one a message answers or was caused by.
struct RequestLog {
    private var byID: [String: String] = [:]
    private var methods: [String: String] = [:]
    private var last: String?

    mutating func note(_ body: [UInt8]) {
        guard let value = try? JSONParser.parse(body) else {
            last = "a message that is not JSON"
            return
        }
        let elements = value.arrayValue ?? [value]
        for element in elements {
            let method = element["method"]?.stringValue ?? "?"
            let params = element["params"].map { " " + Self.short($0) } ?? ""
            if let id = element["id"] {
                methods[Self.short(id)] = method
                let described = "request \(Self.short(id)) \(method)\(params)"
                byID[Self.short(id)] = described
                last = described
            } else {
                last = "notification \(method)\(params)"
            }
        }
        if value.arrayValue != nil { last = "a batch of \(elements.count)" }
    }

    /// Which request a received message belongs to: the one it answers, the one its `cause`
    /// names, or else the last one sent.
    func cause(of message: JSONValue) -> String? {
        if message.arrayValue != nil { return "the answer to \(last ?? "a batch")" }
        if message["method"] == nil, let id = message["id"], let request = byID[Self.short(id)] {
            return "the answer to \(request)"
        }
        let method = message["method"]?.stringValue ?? "a message"
        if let cause = message["params"]?["cause"], let request = byID[Self.short(cause)] {
            return "\(method) caused by \(request)"
        }
        return last.map { "\(method) after \($0)" }
    }

    /// A received message as a replay compares it: an answer to `initialize` (alone or in a batch)
    /// with its `viewModels` reduced to the used types (``UsedTypes``); anything else unchanged.
    func comparable(_ message: JSONValue, _ used: UsedTypes) -> JSONValue {
        if let elements = message.arrayValue { return .array(elements.map { comparable($0, used) }) }
        guard message["method"] == nil, let id = message["id"], methods[Self.short(id)] == "initialize" else { return message }
        return used.comparable(initializeAnswer: message)
    }

    private static func short(_ value: JSONValue) -> String {
        let text = String(decoding: JSONWriter.bytes(value), as: UTF8.self)
        return text.count > 120 ? text.prefix(120) + "…" : text
    }
}
