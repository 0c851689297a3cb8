/// Compact serialization of ``JSONValue`` to UTF-8 bytes.
///
/// Output has no insignificant whitespace and keeps object members in their stored order, so the same
/// value always yields the same bytes. Strings are written as raw UTF-8, escaping only what JSON
/// requires (`"`, `\` and control characters). Non-finite doubles, which JSON cannot express, become
/// `null`.
///
/// ```swift
/// JSONWriter.string(["id": 1, "ok": true])  // {"id":1,"ok":true}
/// ```
public enum JSONWriter {
    /// Appends the compact serialization (no spaces) of `value` to `buffer`.
    public static func write(_ value: JSONValue, into buffer: inout [UInt8]) {
        withOutput { output in
            output.write(value)
            buffer.append(contentsOf: output.written)
        }
    }

    /// The compact serialization of `value` as bytes.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        withOutput { output in
            output.write(value)
            return Array(output.written)
        }
    }

    /// The compact serialization of `value` as a String.
    public static func string(_ value: JSONValue) -> String {
        withOutput { output in
            output.write(value)
            return String(decoding: output.written, as: UTF8.self)
        }
    }

    /// The bytes `write` appends to `output`, in order: for a message whose envelope the caller
    /// knows (its keys and their order), written as literal text around the values, with no
    /// ``JSONValue`` built for the whole. The caller keeps the result valid JSON.
    public static func bytes(_ write: (inout Output) -> Void) -> [UInt8] {
        withOutput { output in
            write(&output)
            return Array(output.written)
        }
    }

    /// Runs `use` on the bytes `write` appends to an output (see ``bytes(_:)-(inout Output) -> Void``),
    /// without copying them into an array: valid only during `use`.
    public static func withBytes<Result>(_ write: (inout Output) -> Void,
                                         _ use: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        withOutput { output in
            write(&output)
            return use(output.written)
        }
    }

    /// Runs `body` with an output that starts on the stack, so a typical message costs no extra allocation.
    ///
    /// Appending to an Array byte by byte pays a uniqueness and capacity check each time; writing through
    /// a pointer and copying the result out once took a third fewer instructions on a typical message.
    private static func withOutput<Result>(_ body: (inout Output) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1024) { stack in
            var output = Output(stack: stack)
            return body(&output)
        }
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value, as it would go on the wire.
    public var description: String { JSONWriter.string(self) }
}
