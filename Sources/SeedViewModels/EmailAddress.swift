/// The email check of seed 000, without NSPredicate: a whole match of
/// `[A-Z0-9a-z._%+-]+@([A-Za-z0-9-]+\.)+[A-Za-z]{2,4}`.
///
/// Written out by hand because it runs on every keystroke and a regex engine costs far more; a test
/// holds it to the regular expression on many inputs.
public enum EmailAddress {
    public static func isValid(_ text: String) -> Bool {
        var text = text
        return text.withUTF8(isValid(bytes:))
    }

    /// One pass, no allocation: the local part up to the first `@`, then the domain label by label.
    private static func isValid(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0 else { return false }
        guard bytes[..<at].allSatisfy(isLocalCharacter) else { return false }
        // The domain is labels ending in dots, then a top-level part of 2-4 letters with no dot.
        var labels = 1, labelLength = 0, labelIsValid = true, labelIsLetters = true
        for byte in bytes[(at + 1)...] {
            if byte == UInt8(ascii: ".") {
                guard labelLength > 0, labelIsValid else { return false }
                labels += 1
                labelLength = 0
                labelIsValid = true
                labelIsLetters = true
                continue
            }
            labelLength += 1
            labelIsValid = labelIsValid && isLabelCharacter(byte)
            labelIsLetters = labelIsLetters && isLetter(byte)
        }
        return labels >= 2 && (2...4).contains(labelLength) && labelIsLetters
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isLabelCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "-")
    }

    private static func isLocalCharacter(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || "._%+-".utf8.contains(byte)
    }
}
