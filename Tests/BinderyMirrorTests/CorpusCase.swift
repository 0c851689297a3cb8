import BinderyMirror
import JSONRPC

/// One case of the client mirror corpus (Tests/ClientMirror/README.md) run through ``Mirror``, and
/// compared with its `expect` exactly as `Tests/ClientMirror/reference_mirror.py`'s `run` does.
enum CorpusCase {
    /// What differs from the case's expectation; empty when it folds as expected.
    static func problems(_ testCase: JSONValue) -> [String] {
        var mirror = Mirror()
        let given = expand(testCase["given"] ?? [:])
        for session in given["sessions"]?.objectValue?.members ?? [] {
            if let id = Int(session.key) { mirror.take(id, Mirror.Session(session.value)) }
        }
        for write in given["pending"]?.arrayValue ?? [] {
            guard case .int(let session)? = write["session"], let field = write["field"]?.stringValue else { continue }
            mirror.wrote(id: write["id"] ?? .null, session: session, field: field, value: write["value"] ?? .null)
        }
        for message in expand(testCase["receive"] ?? []).arrayValue ?? [] { mirror.receive(message) }

        let expect = expand(testCase["expect"] ?? [:])
        var problems: [String] = []
        let resync = mirror.outOfStep.sorted()
        let expectedResync = (expect["resync"]?.arrayValue ?? []).compactMap(id(of:)).sorted()
        if resync != expectedResync { problems.append("resync \(resync), expected \(expectedResync)") }
        if let expected = expect["sessions"]?.objectValue {
            let held = mirror.sessions.filter { !mirror.outOfStep.contains($0.key) }
            let expectedIDs = expected.keys.compactMap { Int($0) }.sorted()
            if held.keys.sorted() != expectedIDs { problems.append("sessions \(held.keys.sorted()), expected \(expectedIDs)") }
            for session in expected.members {
                let actual = Int(session.key).flatMap { held[$0] }.map(json(of:)) ?? [:]
                for member in session.value.objectValue?.members ?? [] where !same(actual[member.key], member.value) {
                    problems.append("session \(session.key) \(member.key): \(describe(actual[member.key])), expected \(member.value)")
                }
            }
        }
        for session in expect["shown"]?.objectValue?.members ?? [] {
            let shown = Int(session.key).flatMap { mirror.shown($0) } ?? JSONObject()
            for member in session.value.objectValue?.members ?? [] where !same(shown[member.key], member.value) {
                problems.append("session \(session.key) shows \(member.key) = \(describe(shown[member.key])), expected \(member.value)")
            }
        }
        if let expected = expect["pending"] {
            let ids = JSONValue.array(mirror.pending.map(\.id))
            if !same(ids, expected) { problems.append("pending \(ids), expected \(expected)") }
        }
        return problems
    }

    /// A session as the reference holds it: `type`, `revision`, `state`, and `display` when held.
    private static func json(of session: Mirror.Session) -> JSONObject {
        var object: JSONObject = ["type": .string(session.type), "revision": .int(session.revision),
                                  "state": .object(session.state)]
        if let display = session.display { object.append("display", .object(display)) }
        return object
    }

    /// A session id as a case writes it: a number, or a string of digits.
    private static func id(of value: JSONValue) -> Int? {
        switch value {
        case .int(let id): id
        case .string(let text): Int(text)
        default: nil
        }
    }

    private static func describe(_ value: JSONValue?) -> String { value.map { "\($0)" } ?? "None" }

    /// The case files' shorthand: `{"$range": N}` is the list 0..N-1.
    static func expand(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            if object.count == 1, case .int(let count)? = object["$range"] { return .array((0..<count).map { .int($0) }) }
            return .object(JSONObject(object.members.map { ($0.key, expand($0.value)) }))
        case .array(let elements):
            return .array(elements.map(expand))
        default:
            return value
        }
    }

    /// Python's `==` on parsed JSON, which `run` compares with: objects whatever their members'
    /// order, numbers by value (`1 == 1.0`, and `True == 1`), strings by their Unicode scalars; a
    /// missing value is `None`, which equals nothing the case writes but `null`.
    static func same(_ left: JSONValue?, _ right: JSONValue?) -> Bool {
        switch (left ?? .null, right ?? .null) {
        case (.null, .null):
            return true
        case (.string(let a), .string(let b)):
            return a.hasSameScalars(as: b)
        case (.array(let a), .array(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        case (.object(let a), .object(let b)):
            let keys = Set(a.keys)
            return keys.count == a.count && keys == Set(b.keys) && b.count == keys.count
                && a.members.allSatisfy { same($0.value, b[$0.key]) }
        case (let a, let b):
            guard let x = number(a), let y = number(b) else { return false }
            return x == y
        }
    }

    /// A bool, integer or double as Python compares numbers.
    private static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .bool(let flag): flag ? 1 : 0
        case .int(let int): Double(int)
        case .double(let double): double
        default: nil
        }
    }
}
