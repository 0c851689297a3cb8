import Glibc

/// `bindery-dev --init [DIR]`: a new package with one view model and its daemon, depending on
/// Bindery, ready for `bindery-dev --product NAME` — the first step of the README's loop.
///
/// Bindery is found where this bindery-dev was built from (its checkout), or where `--bindery`
/// says (a path or a git URL). The product is named after the folder. Nothing is overwritten: a
/// folder that already holds a `Package.swift` is refused.
enum Scaffold {
    /// Writes the package; the process's exit code.
    static func write(into directory: String, bindery: String?) -> Int32 {
        guard let folder = absolute(directory) else { return fail("cannot resolve \(directory)") }
        mkdir(folder, 0o755)
        if access(folder + "/Package.swift", F_OK) == 0 {
            return fail("\(folder) already holds a Package.swift; --init starts a new package in an empty folder")
        }
        guard let source = bindery ?? builtFrom() else {
            return fail("cannot find Bindery's checkout; pass --bindery PATH (or a git URL)")
        }
        let name = productName(folder)
        let dependency = source.contains("://") || source.hasPrefix("git@")
            ? ".package(url: \"\(source)\", branch: \"main\")" : ".package(path: \"\(source)\")"
        let identity = packageIdentity(source)
        let files: [(String, String)] = [
            ("Package.swift", """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "\(name)",
                dependencies: [\(dependency)],
                targets: [
                    .executableTarget(name: "\(name)", dependencies: [.product(name: "BinderyServer", package: "\(identity)")]),
                    // Recorded sessions replayed against the view models: Tests/\(name)Tests/Transcripts.
                    .testTarget(name: "\(name)Tests", dependencies: ["\(name)", .product(name: "BinderyTesting", package: "\(identity)")],
                                exclude: ["Transcripts"]),
                ],
                swiftLanguageModes: [.v6]
            )

            """),
            ("Sources/\(name)/GreetingViewModel.swift", """
            import BinderyServer

            /// A form that greets whoever types their name. Save an edit to this file while
            /// `bindery-dev --product \(name)` runs: the form reloads and keeps what was typed.
            @MainActor @Observable final class GreetingViewModel {
                var name = ""
                var greeting: String { name.isEmpty ? "Hello!" : "Hello, \\(name)!" }
            }

            extension GreetingViewModel: ViewModel {
                static var exposure: Exposure<GreetingViewModel> {
                    Exposure {
                        Field("name", \\.name)
                        Output("greeting", \\.greeting)
                    }
                }
            }

            """),
            ("Sources/\(name)/main.swift", """
            import BinderyServer

            var registry = ViewModelRegistry()
            registry.register("greeting") { _ in GreetingViewModel() }
            BinderyDaemon.run(registry: registry, name: "\(name)", version: "0.1.0")

            """),
        ] + RecordedTest.files(product: name)
        for directory in ["Sources", "Sources/\(name)", "Tests", "Tests/\(name)Tests", "Tests/\(name)Tests/Transcripts"] {
            mkdir(folder + "/" + directory, 0o755)
        }
        for (path, text) in files {
            guard let file = fopen(folder + "/" + path, "w") else { return fail("cannot write \(folder)/\(path)") }
            fputs(text, file)
            fclose(file)
        }
        print("""
            Wrote a Swift package in \(folder): the view model "greeting" (Sources/\(name)/GreetingViewModel.swift)
            and its daemon, product \(name). Run it, reloading on every save:
              bindery-dev --package-path \(folder) --product \(name)
            and point a client or an editor at that command (nvim: :BinderyOpen greeting).
            Tests/\(name)Tests replays a recorded session of the form: swift test.
            """)
        return 0
    }

    /// The checkout this bindery-dev was compiled from, if it is still there.
    private static func builtFrom() -> String? {
        var path = #filePath
        for _ in 0..<3 {
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = String(path[..<slash])
        }
        return access(path + "/Package.swift", F_OK) == 0 ? path : nil
    }

    /// How SwiftPM names a dependency: its path's or URL's last component, lowercased, without `.git`.
    private static func packageIdentity(_ source: String) -> String {
        var last = String(source.split(separator: "/").last ?? "bindery")
        if last.hasSuffix(".git") { last.removeLast(4) }
        return last.lowercased()
    }

    /// The folder's name as a Swift identifier.
    private static func productName(_ folder: String) -> String {
        let last = folder.split(separator: "/").last.map(String.init) ?? "app"
        var name = String(last.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        if name.first?.isNumber ?? true { name = "app" + name }
        return name
    }

    private static func absolute(_ directory: String) -> String? {
        if directory.hasPrefix("/") { return directory }
        guard let cwd = getcwd(nil, 0) else { return nil }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return directory == "." ? base : base + "/" + directory
    }

    private static func fail(_ message: String) -> Int32 {
        log(message)
        return 1
    }
}
