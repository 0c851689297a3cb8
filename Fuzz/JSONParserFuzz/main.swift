// libFuzzer target: JSONParser on arbitrary bytes. Build and run with `scripts/fuzz json`.
//
// Checks (see checkJSON in Fuzz/Support/FuzzSupport.swift):
// - no crash, no sanitizer report, on any input;
// - JSONParser accepts exactly what a plain reference RFC 8259 parser accepts (depth limit 512), and
//   produces the same value: doubles to the bit, strings byte for byte, ints vs doubles alike;
// - accepted input is valid UTF-8; a parse error's offset lies within the input;
// - JSONWriter → JSONParser gives the value back (non-finite doubles, from numbers beyond Double's
//   range, come back as null), and writing the result again gives the same bytes;
// - IncomingMessage classifies the value (and each element of a batch) without crashing.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = checkJSON(input, maximumDepth: 512) else { return 0 }
    if case .array(let batch) = value {
        for element in batch { _ = IncomingMessage(element) }
    } else {
        _ = IncomingMessage(value)
    }
    return 0
}
