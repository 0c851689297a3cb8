// bindery-bench: measures binderyd as a real child process over pipes against the rawpipe baseline.
// `swift run -c release bindery-bench --help`; see BENCHMARKS.md.
#if canImport(Glibc)
import Glibc
#endif

signal(SIGPIPE, SIG_IGN)

do {
    let options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
    var bench = Bench(options: options)
    exit(bench.run())
} catch {
    if error.description == BenchError.help.description {
        print(Options.usage)
        exit(0)
    }
    var message = "bindery-bench: \(error.description)\n"
    message.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(2)
}
