// Runs a fuzz target's `fuzz` function over files, without libFuzzer: built with source-based
// coverage by `scripts/fuzz coverage` to report which lines of Sources/JSONRPC the corpus reaches.

#if canImport(Glibc)
import Glibc
#endif

@main struct CoverageDriver {
    static func main() {
        var files = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let file = fopen(path, "rb") else { continue }
            defer { fclose(file) }
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = fread(&chunk, 1, chunk.count, file)
                if count <= 0 { break }
                bytes += chunk[0..<count]
            }
            bytes.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)!
                _ = fuzz(base, buffer.count)
            }
            files += 1
        }
        print("ran \(files) inputs")
    }
}
