/// What a client is shown of a daemon's stderr when it died: the cause, not the flood.
///
/// A Swift crash writes its message (`File.swift:9: Fatal error: …`) and then a backtrace of
/// a dozen lines or more (frames, registers, images), which would bury the message in a form or a
/// quickfix list. The client gets the message and the first frame in the program's own code
/// (`in Model.crash() at /path/File.swift:9:20`); the whole of it stays in bindery-dev's stderr,
/// where the daemon's stderr is copied as it comes.
enum CrashSummary {
    static func of(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map { String($0).trimmingWhitespace() }
        let message = lines.last(where: { $0.contains("Fatal error") })
            ?? lines.last(where: { $0.hasPrefix("*** Program crashed:") }).map(trimmingStars)
        guard let message else {
            return String(text.suffix(2000)).trimmingWhitespace()
        }
        let start = lines.lastIndex(of: message) ?? 0
        guard let frame = lines[start...].first(where: isOwnFrame).flatMap(place) else { return message }
        return message + "\n" + frame
    }

    /// A backtrace frame in the program's code: it names a source file outside the toolchain.
    private static func isOwnFrame(_ line: String) -> Bool {
        guard line.first?.isNumber == true, let at = line.ranges(of: " at /").last else { return false }
        let path = line[at.upperBound...]
        return path.contains(".swift:") && !path.hasPrefix("usr/") && !path.contains("/swift/linux/")
    }

    /// `3 [ra] 0x… Model.index() + 89 in crash at /p/File.swift:3:48` -> `in Model.index() at /p/File.swift:3:48`.
    private static func place(_ line: String) -> String? {
        guard let address = line.firstRange(of: " 0x"), let at = line.ranges(of: " at /").last,
              address.upperBound <= at.lowerBound else { return nil }
        var function = line[address.upperBound..<at.lowerBound].drop { $0 != " " }.drop { $0 == " " }
        if let offset = function.ranges(of: " + ").last { function = function[..<offset.lowerBound] }
        return "in \(function) at /" + line[at.upperBound...]
    }

    private static func trimmingStars(_ line: String) -> String {
        String(line.drop { $0 == "*" || $0 == " " }.reversed().drop { $0 == "*" || $0 == " " }.reversed())
    }
}
