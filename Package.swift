// swift-tools-version:6.0
import PackageDescription

/// Whether this package is being built as a dependency that SwiftPM resolved by version (or
/// branch or revision). SwiftPM refuses unsafe flags in such a package's targets, so the tuning
/// below applies only where this package is the root (or a local path dependency). SwiftPM 6 reads
/// such a manifest from the repository, not from a folder: `packageDirectory` is then "/" (checked by
/// Tests/UserPackage, which depends on this package by version); a checkout's or a registry
/// download's folder is recognised too, should a later SwiftPM pass one.
let isResolvedDependency = Context.packageDirectory == "/"
    || ["/checkouts/", "/registry/downloads/"].contains { Context.packageDirectory.contains($0) }

/// The modules every request runs through. Release builds drop two run-time checks that static
/// checking already covers in these Swift 6 modules: exclusivity (as the standard library's own
/// release build does; about 2,800 instructions per `setField`) and the dynamic actor-isolation
/// check at the entry of main-actor closures (about 900). Debug builds, and so the unit tests, keep
/// them; so does a package that depends on Bindery by version (its daemon is correct, and about a
/// tenth slower per request: BENCHMARKS.md). `BINDERY_RELEASE_TUNING=0` turns the tuning off here too.
let hotPath: [SwiftSetting] = isResolvedDependency || Context.environment["BINDERY_RELEASE_TUNING"] == "0" ? [] : [
    .unsafeFlags(["-enforce-exclusivity=unchecked", "-Xfrontend", "-disable-dynamic-actor-isolation"],
                 .when(configuration: .release)),
]

let package = Package(
    name: "Bindery",
    products: [
        .library(name: "JSONRPC", targets: ["JSONRPC"]),
        .library(name: "Bindery", targets: ["Bindery"]),
        .library(name: "BinderyServer", targets: ["BinderyServer"]),
        .library(name: "BinderyTesting", targets: ["BinderyTesting"]),
        .executable(name: "binderyd", targets: ["binderyd"]),
        .executable(name: "bindery-dev", targets: ["bindery-dev"]),
        .executable(name: "bindery-replay", targets: ["bindery-replay"]),
    ],
    targets: [
        // Transport: JSON values, JSON-RPC messages, framing, stdio connection. Knows no view models.
        .target(name: "JSONRPC", dependencies: ["CDispatchMainQueue"], swiftSettings: hotPath),
        // libdispatch's main-queue hooks, so the daemon's main thread can read, parse and handle
        // input itself and still run main-actor work (see MainLoop).
        .target(name: "CDispatchMainQueue", linkerSettings: [.linkedLibrary("dispatch")]),
        // SplitMix64: the one seeded generator of the runtime, the property tests and the fuzzers.
        .target(name: "SeededRandom"),
        // The Swift runtime's type lookup by mangled name, which Swift code may not call by name:
        // how an enum's payload types are found for its schema (see TypeMetadata).
        .target(name: "CSwiftRuntime"),
        // What a view-model author imports: exposure, value coding, schema, change tracking.
        .target(name: "Bindery", dependencies: ["JSONRPC", "SeededRandom", "CSwiftRuntime"], swiftSettings: hotPath),
        // For view model authors' tests: a view model opened in-process, every change asserted;
        // a recorded transcript replayed against their registry (the server in-process).
        .target(name: "BinderyTesting", dependencies: ["Bindery", "BinderyServer", "BinderyTranscript"]),
        // Transcripts: the format, the replay of a client's side, the semantic diff. Shared by
        // BinderyTesting (in-process) and bindery-replay (a daemon process over pipes).
        .target(name: "BinderyTranscript", dependencies: ["JSONRPC"]),
        // The protocol methods over sessions, recording, the stdio entry point.
        .target(name: "BinderyServer", dependencies: ["JSONRPC", "Bindery"], swiftSettings: hotPath),
        // The view models of the seed articles.
        .target(name: "SeedViewModels", dependencies: ["Bindery"]),
        // A fully static executable (-static-executable: the Swift runtime and glibc inside): no
        // dynamic loader at start-up (measured: 9 ms dynamic -> 5 ms with -static-stdlib -> about
        // 0.55x rawpipe's start-up here), and it runs on a machine without the toolchain. The
        // linker's warning about `dlopen` concerns an optional runtime lookup that then finds nothing.
        .executableTarget(name: "binderyd", dependencies: ["BinderyServer", "SeedViewModels"],
                          linkerSettings: [.unsafeFlags(["-static-executable"]),
                                           // FoundationEssentials' own dependencies, which a static link must name.
                                           .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]),
        // Sessions on the lasting Observation registration, checked where it runs (linked like
        // binderyd; the unit tests' bundle links the runtime dynamically). Run by scripts/test.
        .executableTarget(name: "lasting-registration-check", dependencies: ["Bindery"],
                          path: "Tests/LastingRegistrationCheck",
                          linkerSettings: [.unsafeFlags(["-static-executable"]),
                                           .linkedLibrary("_FoundationCollections"), .linkedLibrary("_FoundationCShims")]),
        // View models written as apps write them (plain classes, Foundation values, enums with
        // payloads, Timer, writes off the main actor), in a Swift 5 module, hosted as they are.
        .target(name: "AppViewModels", dependencies: ["Bindery"], path: "Examples/AppViewModels",
                swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "appd", dependencies: ["BinderyServer", "AppViewModels"], path: "Examples/appd",
                          swiftSettings: [.swiftLanguageMode(.v5)]),
        // The README's example of a daemon of your own, on the public API only.
        .executableTarget(name: "counterd", dependencies: ["BinderyServer"], path: "Examples/counterd"),
        // A client's copy of what the daemon told it, folded by protocol.md's "Client mirror".
        .target(name: "BinderyMirror", dependencies: ["JSONRPC"]),
        // The developer loop: builds a package's daemon, reloads it on save, sessions moved across.
        .executableTarget(name: "bindery-dev", dependencies: ["JSONRPC", "BinderyMirror"]),
        // Replays transcripts against any daemon command, for CI: `bindery-replay --daemon CMD FILE…`.
        .executableTarget(name: "bindery-replay", dependencies: ["BinderyTranscript"]),
        // Benchmarks: `swift run -c release bindery-bench` (see BENCHMARKS.md).
        .executableTarget(name: "bindery-bench", dependencies: ["JSONRPC"], path: "Benchmarks/bindery-bench"),
        // The raw-pipe baseline the benchmarks compare against: canned answers, no JSON parsing.
        .executableTarget(name: "rawpipe", path: "Benchmarks/rawpipe"),

        .testTarget(name: "JSONRPCTests", dependencies: ["JSONRPC", "SeededRandom"]),
        // The client mirror corpus (Tests/ClientMirror/cases) folded by BinderyMirror.
        .testTarget(name: "BinderyMirrorTests", dependencies: ["BinderyMirror", "JSONRPC"]),
        .testTarget(name: "BinderyTests", dependencies: ["Bindery", "BinderyTesting", "SeedViewModels", "SeededRandom"]),
        .testTarget(name: "BinderyServerTests", dependencies: ["BinderyServer", "SeedViewModels", "AppViewModels"]),
        .testTarget(name: "ExampleTests", dependencies: ["AppViewModels", "BinderyTesting", "BinderyServer"]),
        .testTarget(name: "ReplayTests", dependencies: ["BinderyTesting", "BinderyServer", "SeedViewModels", "AppViewModels"]),
    ],
    swiftLanguageModes: [.v6]
)
