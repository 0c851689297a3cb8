import Foundation
import Testing

/// Every Swift snippet in the README is real code of this repository, line for line (indentation
/// aside): the TestSession example is a test of this suite, the daemon example is counterd, the
/// dependency key is the seeds' own. So none of them can drift from what compiles and passes.
@Suite struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func swiftBlocks(of text: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" { current = [] } else if current != nil, line == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(String(line))
            }
        }
        return blocks
    }

    static func trimmed(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static var sourceFiles: [[String]] {
        let enumerator = FileManager.default.enumerator(atPath: root.path)
        var files: [[String]] = []
        while let path = enumerator?.nextObject() as? String {
            guard path.hasSuffix(".swift"), !path.hasPrefix("."), path.hasPrefix("Sources/") || path.hasPrefix("Tests/")
                || path.hasPrefix("Examples/") else { continue }
            let text = (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) ?? ""
            files.append(trimmed(text.components(separatedBy: "\n")))
        }
        return files
    }

    @Test func everySwiftSnippetOfTheReadmeIsCodeOfTheRepository() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = Self.swiftBlocks(of: readme)
        #expect(blocks.count >= 4)
        let files = Self.sourceFiles
        for block in blocks.map(Self.trimmed) {
            let found = files.contains { file in
                file.indices.contains { start in Array(file[start...].prefix(block.count)) == block }
            }
            #expect(found, "this README snippet is not code of the repository:\n\(block.joined(separator: "\n"))")
        }
    }
}
