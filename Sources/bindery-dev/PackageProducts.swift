import Glibc
import JSONRPC

/// The executable products of the package bindery-dev is pointed at, for a command line that names
/// none: the products the manifest declares as executables, and the executable targets SwiftPM
/// makes a product of by themselves (a package from `bindery-dev --init` declares no product).
/// Read from `swift package dump-package`, which compiles the manifest only (no dependency is
/// resolved or built). Runs before anything else, on the main thread.
enum PackageProducts {
    /// The names, sorted; or why they could not be read.
    static func executables(in packagePath: String) -> Result<[String], Failure> {
        let quoted = "'" + packagePath.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
        guard let pipe = popen("swift package --package-path \(quoted) dump-package 2>&1", "r") else {
            return .failure(Failure(message: "cannot run swift package dump-package"))
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, pipe)
            if count <= 0 { break }
            output += buffer[0..<count]
        }
        let status = pclose(pipe)
        guard status == 0, let manifest = try? JSONParser.parse(output) else {
            return .failure(Failure(message: "swift package dump-package failed: "
                + String(decoding: output, as: UTF8.self).trimmingWhitespace()))
        }
        var names: Set<String> = []
        var covered: Set<String> = []
        for product in manifest["products"]?.arrayValue ?? [] where product["type"]?["executable"] != nil {
            if let name = product["name"]?.stringValue { names.insert(name) }
            for target in product["targets"]?.arrayValue ?? [] { if let name = target.stringValue { covered.insert(name) } }
        }
        for target in manifest["targets"]?.arrayValue ?? [] where target["type"] == .string("executable") {
            if let name = target["name"]?.stringValue, !covered.contains(name) { names.insert(name) }
        }
        return .success(names.sorted())
    }

    struct Failure: Error {
        let message: String
    }
}
