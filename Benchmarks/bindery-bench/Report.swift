#if canImport(Glibc)
import Glibc
#endif

/// A target of the issue, on a figure's value or on its ratio to rawpipe.
enum Target {
    case ratioAtMost(Double)
    case ratioAtLeast(Double)
    case below(Double)
    case atMost(Double)

    func isMet(value: Double, ratio: Double?) -> Bool? {
        switch self {
        case .ratioAtMost(let limit): ratio.map { $0 <= limit }
        case .ratioAtLeast(let limit): ratio.map { $0 >= limit }
        case .below(let limit): value < limit
        case .atMost(let limit): value <= limit
        }
    }

    func text(unit: String) -> String {
        switch self {
        case .ratioAtMost(let limit): "<= \(formatted(limit, limit == limit.rounded() ? 0 : 1))x rawpipe"
        case .ratioAtLeast(let limit): ">= \(formatted(limit * 100, 0))% of rawpipe"
        case .below(let limit): "< \(formatted(limit, 0)) \(unit)"
        case .atMost(let limit): "<= \(formatted(limit, 2))"
        }
    }

    /// The same, without spaces, for BENCH lines.
    var token: String {
        switch self {
        case .ratioAtMost(let limit): "ratio<=\(formatted(limit, 2))"
        case .ratioAtLeast(let limit): "ratio>=\(formatted(limit, 2))"
        case .below(let limit): "value<\(formatted(limit, 2))"
        case .atMost(let limit): "value<=\(formatted(limit, 2))"
        }
    }
}

/// One measured figure: binderyd's value, rawpipe's where the baseline ran the same driver.
struct Figure {
    var name: String
    var label: String
    var unit: String
    var decimals: Int
    var value: Double
    var rawpipe: Double?
    var target: Target?
    var extra: [(String, String)] = []
    /// False for figures that are only printed as notes and BENCH lines (not about binderyd).
    var inTable = true

    var ratio: Double? { rawpipe.flatMap { $0 > 0 ? value / $0 : nil } }
    var met: Bool? { target?.isMet(value: value, ratio: ratio) }
}

/// Collects figures and prints them as a table and as `BENCH` lines.
struct Report {
    var figures: [Figure] = []
    var notes: [String] = []
    var failures: [String] = []
    /// Tables of their own, printed after the figures' table (a scenario's curve, say).
    var tables: [(title: String, header: [String], rows: [[String]])] = []

    mutating func add(_ figure: Figure) { figures.append(figure) }

    func printAll() {
        printTable()
        print("")
        for figure in figures { print(benchLine(figure)) }
        if !failures.isEmpty {
            print("")
            for failure in failures { print("FAILED \(failure)") }
        }
    }

    func printTable() {
        var rows: [[String]] = []
        for figure in figures where figure.inTable {
            rows.append([
                "\(figure.label) (\(figure.unit))",
                formatted(figure.value, figure.decimals),
                figure.rawpipe.map { formatted($0, figure.decimals) } ?? "",
                figure.ratio.map { formatted($0, 2) + "x" } ?? "",
                figure.target?.text(unit: figure.unit) ?? "",
                figure.met.map { $0 ? "met" : "NOT MET" } ?? "",
            ])
        }
        // Numbers right-aligned.
        printMarkdownTable(header: ["figure", "binderyd", "rawpipe", "ratio", "target", "met"], rows: rows,
                           rightAligned: [false, true, true, true, false, false])
        for note in notes { print(note) }
        for table in tables {
            print("")
            print(table.title)
            // Columns of numbers right-aligned.
            let numeric = table.header.indices.map { column in
                table.rows.allSatisfy { $0[column].allSatisfy { $0.isNumber || $0 == "," || $0 == "." } }
            }
            printMarkdownTable(header: table.header, rows: table.rows, rightAligned: numeric)
        }
    }

    private func printMarkdownTable(header: [String], rows: [[String]], rightAligned: [Bool]) {
        var widths = header.map(\.count)
        for row in rows { for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let pad = String(repeating: " ", count: widths[index] - cell.count)
                return rightAligned[index] ? pad + cell : cell + pad
            }.joined(separator: " | ")
        }
        print("| " + line(header) + " |")
        print("|" + widths.enumerated().map { index, width in
            String(repeating: "-", count: width + 1) + (rightAligned[index] ? ":" : "-")
        }.joined(separator: "|") + "|")
        for row in rows { print("| " + line(row) + " |") }
    }

    func benchLine(_ figure: Figure) -> String {
        var parts = ["BENCH", "name=\(figure.name)", "value=\(formatted(figure.value, figure.decimals))", "unit=\(figure.unit)"]
        if let rawpipe = figure.rawpipe { parts.append("rawpipe=\(formatted(rawpipe, figure.decimals))") }
        if let ratio = figure.ratio { parts.append("ratio_to_rawpipe=\(formatted(ratio, 3))") }
        if let target = figure.target { parts.append("target=\(target.token)") }
        if let met = figure.met { parts.append("met=\(met ? "yes" : "no")") }
        for (key, value) in figure.extra { parts.append("\(key)=\(value)") }
        return parts.joined(separator: " ")
    }
}

/// nproc, CPU model, kernel, load: what the numbers were measured on.
func machineDescription() -> [String] {
    let cpus = sysconf(Int32(_SC_NPROCESSORS_ONLN))
    var model = "unknown"
    if let cpuinfo = readTextFile("/proc/cpuinfo") {
        for line in cpuinfo.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") { model = String(line[line.index(after: colon)...].trimmingSpaces) }
            break
        }
    }
    var names = utsname()
    uname(&names)
    let release = withUnsafeBytes(of: names.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let load = readTextFile("/proc/loadavg").map { $0.split(separator: " ").prefix(3).joined(separator: " ") } ?? "?"
    #if compiler(>=6.3)
    let compiler = ">= 6.3"
    #elseif compiler(>=6.0)
    let compiler = "6.x < 6.3"
    #else
    let compiler = "< 6.0"
    #endif
    return [
        "machine: \(cpus) CPUs (nproc), \(model), Linux \(release), load average \(load)",
        "bench built with Swift compiler \(compiler)",
    ]
}
