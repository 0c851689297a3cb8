import Foundation
import JSONRPC
import Testing

/// The client mirror corpus (`Tests/ClientMirror/cases/*.json`), every case, folded by BinderyMirror
/// (the mirror bindery-dev's proxy keeps). When every case ran and passed and
/// `BINDERY_MIRROR_RECEIPTS` names a directory, writes the receipt `bindery-dev.json` there, which
/// the test command's last suite reads (Tests/ClientMirror/README.md).
@Suite struct MirrorCorpusTests {
    static let cases = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ClientMirror").appendingPathComponent("cases")

    @Test func everyCaseOfTheCorpusFoldsAsTheRulesSay() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.cases.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        #expect(!files.isEmpty, "no case file under \(Self.cases.path)")
        var ran = 0
        var failed = 0
        for file in files {
            let data = try Data(contentsOf: Self.cases.appendingPathComponent(file))
            let corpus = try JSONParser.parse([UInt8](data))
            for testCase in corpus["cases"]?.arrayValue ?? [] {
                ran += 1
                let problems = CorpusCase.problems(testCase)
                if !problems.isEmpty {
                    failed += 1
                    let name = testCase["name"]?.stringValue ?? "?"
                    Issue.record("\(file): \(name): \(problems.joined(separator: "; "))")
                }
            }
        }
        if failed == 0, ran > 0, let directory = ProcessInfo.processInfo.environment["BINDERY_MIRROR_RECEIPTS"],
           !directory.isEmpty {
            let receipt: JSONValue = ["face": "bindery-dev", "cases": .int(ran)]
            try Data(JSONWriter.bytes(receipt)).write(to: URL(fileURLWithPath: directory).appendingPathComponent("bindery-dev.json"))
        }
    }

    /// The comparison is the reference's: a case that expects another value fails.
    @Test func aDifferentExpectationIsAProblem() throws {
        let testCase = try JSONParser.parse("""
            {"name": "x", "given": {"sessions": {"1": {"type": "t", "revision": 0, "state": {"n": 0}}}},
             "receive": [{"jsonrpc": "2.0", "method": "didChange", "params": {"session": 1, "revision": 1, "changes": {"n": 1}}}],
             "expect": {"sessions": {"1": {"revision": 1, "state": {"n": 2}}}}}
            """)
        #expect(CorpusCase.problems(testCase).count == 1)
        #expect(CorpusCase.same(["a": 1, "b": 2.0], ["b": 2, "a": 1]))
        #expect(!CorpusCase.same(["a": 1], ["a": 1, "b": nil]))
    }
}
