import SeededRandom
import Testing

import JSONRPC

/// The error `text` fails with, or nil if it parses.
private func parseError(
    _ text: String, maximumDepth: Int = JSONParser.defaultMaximumDepth
) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(text, maximumDepth: maximumDepth)
        return nil
    } catch {
        return error
    }
}

private func parseError(bytes: [UInt8]) -> JSONParseError? {
    do {
        _ = try JSONParser.parse(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite struct JSONParserTests {
    @Test func parsesScalars() throws {
        #expect(try JSONParser.parse("null") == .null)
        #expect(try JSONParser.parse("true") == .bool(true))
        #expect(try JSONParser.parse("false") == .bool(false))
        #expect(try JSONParser.parse("\"hi\"") == .string("hi"))
        #expect(try JSONParser.parse("0") == .int(0))
        #expect(try JSONParser.parse("-0") == .int(0))
        #expect(try JSONParser.parse("-12") == .int(-12))
    }

    @Test func parsesNestedDocument() throws {
        let text = #"{"jsonrpc":"2.0","id":12,"params":{"list":[1,2.5,"x",null,true,[],{}]}}"#
        let expected: JSONValue = [
            "jsonrpc": "2.0", "id": 12,
            "params": ["list": [1, 2.5, "x", nil, true, [], [:]]],
        ]
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test func acceptsWhitespaceAroundTokens() throws {
        let text = " \t\r\n{ \"a\" :\n[ 1 ,\t2 ] , \"b\" : { } }\n "
        #expect(try JSONParser.parse(text) == ["a": [1, 2], "b": [:]])
    }

    @Test func keepsDuplicateKeysInOrder() throws {
        let value = try JSONParser.parse(#"{"a":1,"b":2,"a":3}"#)
        #expect(value.objectValue?.keys == ["a", "b", "a"])
        #expect(value["a"] == .int(3))
    }

    @Test func parsesAllInputForms() throws {
        let text = #"[1,"é"]"#
        let fromBytes = try JSONParser.parse(Array(text.utf8))
        let fromRaw = try Array(text.utf8).withUnsafeBytes { raw throws(JSONParseError) in
            try JSONParser.parse(raw)
        }
        #expect(fromBytes == [1, "é"])
        #expect(fromRaw == fromBytes)
    }

    // MARK: Numbers

    @Test func integersStayIntsAndEverythingElseIsDouble() throws {
        #expect(try JSONParser.parse("9223372036854775807") == .int(.max))
        #expect(try JSONParser.parse("-9223372036854775808") == .int(.min))
        #expect(try JSONParser.parse("9223372036854775808") == .double(9223372036854775808))
        #expect(try JSONParser.parse("123456789012345678901234567890") == .double(1.2345678901234568e29))
        #expect(try JSONParser.parse("1.0") == .double(1))
        #expect(try JSONParser.parse("1e2") == .double(100))
        #expect(try JSONParser.parse("-2.5E-3") == .double(-0.0025))
        #expect(try JSONParser.parse("0.1") == .double(0.1))
        #expect(try JSONParser.parse("1e-400") == .double(0))
    }

    /// Short decimals take a fast path of their own; it must agree with the standard library's conversion.
    @Test func decimalsRoundLikeTheStandardLibrary() throws {
        let edges = [
            "0.1", "0.3", "4.35", "1e22", "1e23", "9007199254740993.0", "123456789012345678e-5",
            "1.7976931348623157e308", "2.2250738585072014e-308", "5e-324", "0.000001e-16", "-1.5E+3",
        ]
        for text in edges {
            #expect(try JSONParser.parse(text) == .double(Double(text)!), "\(text)")
        }
        var random = SplitMix64(seed: 8259)
        for _ in 0..<10_000 {
            let integer = Int.random(in: 0...99_999_999, using: &random)
            let fraction = UInt64.random(in: 0...99_999_999_999, using: &random)
            let exponent = Int.random(in: -30...30, using: &random)
            let scaled = Bool.random(using: &random)
            let text = scaled ? "\(integer).\(fraction)e\(exponent)" : "-\(integer).\(fraction)"
            #expect(try JSONParser.parse(text) == .double(Double(text)!), "\(text)")
        }
        let negativeZero = try JSONParser.parse("-0.0")
        #expect(negativeZero == .double(0) && JSONWriter.string(negativeZero) == "-0.0")
    }

    @Test func numbersBeyondDoubleRangeReadAsInfinity() throws {
        #expect(try JSONParser.parse("1e999") == .double(.infinity))
        #expect(try JSONParser.parse("[-1e400]") == [.double(-.infinity)])
        #expect(try JSONParser.parse(String(repeating: "9", count: 400)) == .double(.infinity))
    }

    @Test(arguments: [
        ("01", "leading zeros are not allowed in numbers", 0),
        ("-01", "leading zeros are not allowed in numbers", 1),
        ("+1", "leading '+' is not allowed in numbers", 0),
        ("-", "expected a digit after '-'", 1),
        ("1.", "expected a digit after '.'", 2),
        (".5", "unexpected character '.'", 0),
        ("1e", "expected a digit in the exponent", 2),
        ("1e+", "expected a digit in the exponent", 3),
        ("NaN", "NaN is not valid JSON", 0),
        ("Infinity", "Infinity is not valid JSON", 0),
        ("[-Infinity]", "-Infinity is not valid JSON", 1),
    ])
    func rejectsBadNumbers(text: String, message: String, offset: Int) {
        #expect(parseError(text) == JSONParseError(message: message, offset: offset))
    }

    // MARK: Strings

    @Test func decodesEscapes() throws {
        let text = #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\u0000""#
        #expect(try JSONParser.parse(text) == .string("\"\\/\u{8}\u{C}\n\r\tAé€\u{0}"))
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONParser.parse(#""a\uD834\uDD1Eb""#) == .string("a𝄞b"))
    }

    @Test func keepsRawUTF8() throws {
        #expect(try JSONParser.parse("\"日本語 😀\"") == .string("日本語 😀"))
        #expect(try JSONParser.parse("\"😀\\n😀\"") == .string("😀\n😀"))
    }

    @Test(arguments: [
        (#""\ud83d""#, "lone surrogate \\uD83D", 1),
        (#""\ud83dx""#, "lone surrogate \\uD83D", 1),
        (#""ab\uD83D\u0041""#, "lone surrogate \\uD83D", 3),
        (#""\uDE00""#, "lone surrogate \\uDE00", 1),
        (#""\u12G4""#, "invalid \\u escape, expected 4 hex digits", 1),
        (#""\u12"#, "invalid \\u escape, expected 4 hex digits", 1),
        (#""\x""#, "invalid escape '\\x'", 1),
        (#""abc"#, "unterminated string", 0),
        (#"["ok", "abc\"]"#, "unterminated string", 7),
        ("\"a\nb\"", "unescaped control character 0x0A in string", 2),
        ("\"a\\n\tb\"", "unescaped control character 0x09 in string", 4),
    ])
    func rejectsBadStrings(text: String, message: String, offset: Int) {
        #expect(parseError(text) == JSONParseError(message: message, offset: offset))
    }

    @Test func rejectsInvalidUTF8() {
        let invalid = JSONParseError(message: "invalid UTF-8 in string", offset: 3)
        #expect(parseError(bytes: [0x22, 0x61, 0x62, 0xFF, 0x22]) == invalid)  // never valid
        #expect(parseError(bytes: [0x22, 0x61, 0x62, 0xC3, 0x22]) == invalid)  // truncated sequence
        #expect(parseError(bytes: [0x22, 0x61, 0x62, 0xC0, 0xAF, 0x22]) == invalid)  // overlong '/'
        #expect(parseError(bytes: [0x22, 0x61, 0x62, 0xED, 0xA0, 0x80, 0x22]) == invalid)  // surrogate
        #expect(parseError(bytes: Array(#""\n"#.utf8) + [0xE2, 0x82, 0x22]) == invalid)  // after escapes
    }

    /// Strings are scanned eight bytes at a time; special bytes must be caught at every position in a word.
    @Test func findsSpecialBytesAtEveryPosition() throws {
        for length in 0..<20 {
            for position in 0...length {
                let before = String(repeating: "a", count: position)
                let after = String(repeating: "b", count: length - position)
                let escaped = try JSONParser.parse("[\"\(before)\\n\(after)\",\"tail after the string\"]")
                #expect(escaped == [.string(before + "\n" + after), "tail after the string"])
                let padding = String(repeating: " ", count: 8)  // so that the scan can read whole words
                let accented = try JSONParser.parse("\"\(before)é\(after)\"\(padding)")
                #expect(accented == .string(before + "é" + after))
                #expect(parseError("\"\(before)\u{1F}\(after)\"\(padding)")?.offset == 1 + position)
                let invalid = [0x22] + Array(before.utf8) + [0xFF] + Array("\(after)\"\(padding)".utf8)
                let invalidError = JSONParseError(message: "invalid UTF-8 in string", offset: 1 + position)
                #expect(parseError(bytes: invalid) == invalidError)
            }
        }
    }

    @Test func parsesMegabyteString() throws {
        let body = String(repeating: "abcdefgh€", count: 100_000)
        #expect(try JSONParser.parse("\"\(body)\"") == .string(body))
        let escaped = String(repeating: "line\\n", count: 200_000)
        let expected = String(repeating: "line\n", count: 200_000)
        #expect(try JSONParser.parse("[\"\(escaped)\"]") == [.string(expected)])
    }

    // MARK: Structure

    @Test(arguments: [
        ("", "empty input", 0),
        (" \n\t ", "empty input", 0),
        ("[1,]", "trailing comma in array", 2),
        (#"{"a":1 , }"#, "trailing comma in object", 7),
        ("[1 2]", "unexpected character '2' in array, expected ',' or ']'", 3),
        (#"{"a" 1}"#, "unexpected character '1' in object, expected ':' after key", 5),
        (#"{"a":1 "b":2}"#, "unexpected character '\"' in object, expected ',' or '}'", 7),
        ("{a:1}", "unexpected character 'a' in object, expected a string key", 1),
        ("[1", "unexpected end of input", 2),
        (#"{"a":"#, "unexpected end of input", 5),
        ("[,1]", "unexpected character ','", 1),
        ("tru", "invalid literal, expected 'true'", 0),
        ("[nul]", "invalid literal, expected 'null'", 1),
        ("// hi\n1", "comments are not allowed in JSON", 0),
        ("[1] x", "unexpected character 'x' after the JSON value", 4),
        ("{} {}", "unexpected character '{' after the JSON value", 3),
        ("1\u{0}", "unexpected byte 0x00 after the JSON value", 1),
        ("truex", "unexpected character 'x' after the JSON value", 4),
    ])
    func rejectsBadStructure(text: String, message: String, offset: Int) {
        #expect(parseError(text) == JSONParseError(message: message, offset: offset))
    }

    @Test func errorDescriptionNamesOffset() {
        #expect(parseError("[1,]")?.description == "trailing comma in array at byte 2")
    }

    @Test func limitsNestingDepth() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect(parseError(deep) == JSONParseError(message: "nesting deeper than 512 levels", offset: 512))
        let objects = String(repeating: #"{"a":"#, count: 600)
        #expect(parseError(objects)?.message == "nesting deeper than 512 levels")

        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try JSONParser.parse(atLimit) }
        let shallow = JSONParseError(message: "nesting deeper than 2 levels", offset: 2)
        #expect(parseError("[[[]]]", maximumDepth: 2) == shallow)
        #expect(parseError("[[],[]]", maximumDepth: 2) == nil)
    }
}
