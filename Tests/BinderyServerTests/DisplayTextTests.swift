import Foundation
import Testing
@testable import BinderyServer
import AppViewModels
import SeedViewModels

/// `display` and `text`: every value's one line of text reads back as the same value (display →
/// text is the identity), for every member of every example and seed type — the value catalogue
/// holds each value type protocol.md lists — and text that cannot be read is refused with what
/// the type expects.
@MainActor @Suite struct DisplayTextTests {
    /// Every session of appd's and binderyd's types, opened as a client opens them.
    static func sessions() throws -> [Session] {
        var registry = ViewModelRegistry()
        ExampleViewModels.register(into: &registry)
        registry.registerSeedViewModels()
        let table = SessionTable(registry: registry, dependencies: .deterministic())
        var opened: [Session] = []
        for type in registry.types {
            let arguments: JSONObject = type.name == "element" ? ["symbol": "Fe"] : [:]
            if let session = try? table.open(type, arguments: arguments, observing: nil) { opened.append(session) }
        }
        return opened
    }

    @Test func everyValuesDisplayReadsBackAsItself() throws {
        let sessions = try Self.sessions()
        #expect(sessions.count >= 15)
        var checked = 0
        for session in sessions {
            for (name, value) in session.state().members {
                guard let type = session.type.valueType(ofMember: name), !"\(type.schema)".contains("viewModel") else { continue }
                let text = ValueText.format(value, as: type)
                let read = try ValueText.read(text, as: type)
                #expect(read.isSameValue(as: value), "\(session.type.name).\(name): \(value) shown as \(text), read as \(read)")
                checked += 1
            }
        }
        #expect(checked > 60)
    }

    @Test func theFormIsSwiftsOwn() throws {
        let union = ValueType.union("Shape", [
            .init(name: "circle", members: [.init(name: "radius", type: .number, isOptional: false)]),
            .init(name: "rectangle", members: [.init(name: "_0", type: .number, isOptional: false),
                                               .init(name: "_1", type: .number, isOptional: false)]),
            .init(name: "point", members: []),
        ])
        #expect(ValueText.format(["case": "rectangle", "_0": 2, "_1": 3], as: union) == "rectangle(2, 3)")
        #expect(ValueText.format(["case": "point"], as: union) == "point")
        #expect(try ValueText.read(" Rectangle( 2 ,3.5 ) ", as: union) == ["case": "rectangle", "_0": 2, "_1": 3.5])
        let note = ValueType.object("Note", [.init(name: "text", type: .string, isOptional: false),
                                             .init(name: "due", type: .optional(.integer), isOptional: true)])
        let quoted: JSONValue = ["text": "say \"hi\"\n\u{1}"]
        #expect(ValueText.format(quoted, as: note) == #"Note(text: "say \"hi\"\n\u{1}")"#)
        #expect(try ValueText.read(ValueText.format(quoted, as: note), as: note) == quoted)
        #expect(try ValueText.read("{text: \"a\", due: 3}", as: note) == ["text": "a", "due": 3])
        #expect(ValueText.format(.null, as: .optional(.integer)) == "")
        #expect(try ValueText.read("  ", as: .optional(.integer)) == .null)
        #expect(try ValueText.read("yes", as: .bool) == true)
        #expect(try ValueText.read("Normal", as: .enumeration(["low", "normal", "high"])) == "normal")
        #expect(ValueText.format(.object(JSONObject()), as: .dictionary(.integer)) == "[:]")
        #expect(try ValueText.read("[:]", as: .dictionary(.integer)) == .object(JSONObject()))
    }

    @Test func unreadableTextSaysWhatTheTypeExpects() {
        let error = #expect(throws: ValueTextError.self) { try ValueText.read("twelve", as: .integer) }
        #expect(error?.expected == "a whole number")
        let missing = #expect(throws: ValueTextError.self) {
            try ValueText.read("Note()", as: .object("Note", [.init(name: "text", type: .string, isOptional: false)]))
        }
        #expect(missing?.reason == "\"text\" is missing")
        #expect(ValueText.expected(.formatted(.string, format: "uuid")).hasPrefix("a UUID"))
    }
}

/// A decimal is a whole number or nothing: Foundation's parser reads a prefix and drops the rest.
@Suite struct DecimalTextTests {
    @Test(arguments: ["1,5", "1.5.0", "12x", "", ".", "-", "1e", "e5", " 1"])
    func aStringThatIsNotWhollyANumberIsRefused(_ text: String) {
        #expect(throws: ValueError.self) { try Decimal(jsonValue: .string(text)) }
    }

    @Test(arguments: [("0.3", "0.3"), ("-12.50", "-12.5"), ("1e3", "1000"), (".5", "0.5"), ("7.", "7"), ("+2", "2")])
    func aWholeNumberIsRead(_ text: String, _ expected: String) throws {
        #expect(try Decimal(jsonValue: .string(text)).description == expected)
    }
}
