/// Why a JSON text could not be parsed, and where.
///
/// `description` reads like "unterminated string at byte 17", which is what a JSON-RPC parse error
/// reports back to the client.
public struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, in words: "unterminated string", "lone surrogate \uD83D", ...
    public var message: String
    /// The byte offset in the input where the problem was found.
    public var offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { "\(message) at byte \(offset)" }
}
