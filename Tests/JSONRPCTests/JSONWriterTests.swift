import Testing

import JSONRPC

@Suite struct JSONWriterTests {
    @Test func writesCompactInStoredOrder() {
        let value: JSONValue = [
            "jsonrpc": "2.0", "id": 12, "method": "setField",
            "params": ["session": 3, "field": "email", "value": "a@b.co", "flags": [true, false, nil]],
        ]
        let expected = #"{"jsonrpc":"2.0","id":12,"method":"setField","#
            + #""params":{"session":3,"field":"email","value":"a@b.co","flags":[true,false,null]}}"#
        #expect(JSONWriter.string(value) == expected)
        #expect(JSONWriter.bytes(value) == Array(expected.utf8))
        #expect(value.description == expected)
    }

    @Test func writesEmptyContainers() {
        #expect(JSONWriter.string([]) == "[]")
        #expect(JSONWriter.string([:]) == "{}")
        #expect(JSONWriter.string([[], [:], [[]]]) == "[[],{},[[]]]")
    }

    @Test func keepsDuplicateKeys() {
        var object = JSONObject()
        object.append("a", 1)
        object.append("a", 2)
        #expect(JSONWriter.string(.object(object)) == #"{"a":1,"a":2}"#)
    }

    @Test func appendsToExistingBuffer() {
        var buffer = Array("Content: ".utf8)
        JSONWriter.write([1, "x"], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"Content: [1,"x"]"#)
    }

    // MARK: Numbers

    @Test(arguments: [
        (0, "0"), (7, "7"), (-7, "-7"), (10, "10"), (1234567890, "1234567890"),
        (Int.max, "9223372036854775807"), (Int.min, "-9223372036854775808"),
    ])
    func writesInts(number: Int, text: String) {
        #expect(JSONWriter.string(.int(number)) == text)
    }

    @Test(arguments: [
        (3.0, "3.0"), (0.1, "0.1"), (-2.5, "-2.5"), (1e20, "1e+20"), (1e-5, "1e-05"),
        (-0.0, "-0.0"), (1.7976931348623157e308, "1.7976931348623157e+308"),
    ])
    func writesDoublesShortest(number: Double, text: String) {
        #expect(JSONWriter.string(.double(number)) == text)
    }

    @Test func writesNonFiniteDoublesAsNull() {
        let value: JSONValue = [.double(.nan), .double(.infinity), .double(-.infinity)]
        #expect(JSONWriter.string(value) == "[null,null,null]")
    }

    @Test func doublesStayDoublesAndIntsStayInts() throws {
        let value: JSONValue = [
            .int(3), .double(3), .double(0.1), .double(1e300), .double(.leastNonzeroMagnitude),
        ]
        #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
    }

    // MARK: Strings

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote \" backslash \\", #""quote \" backslash \\""#),
        ("\u{8}\u{C}\n\r\t", #""\b\f\n\r\t""#),
        ("\u{0}\u{1}\u{1F}", #""\u0000\u0001\u001f""#),
        ("a/b", #""a/b""#),
        ("é€😀", "\"é€😀\""),
        ("\u{7F}\u{2028}", "\"\u{7F}\u{2028}\""),
    ])
    func escapesOnlyWhatJSONRequires(string: String, text: String) {
        #expect(JSONWriter.string(.string(string)) == text)
    }

    /// Strings are scanned eight bytes at a time; every byte near the special ones (0x1F/0x20, `"`, `\`)
    /// must come out right at every position in a word.
    @Test func escapesAtEveryPosition() throws {
        let samples: [Character] = [
            "\"", "\\", "\n", "\u{1}", "\u{1F}", " ", "!", "#", "[", "]", "\u{7F}", "é", "😀",
        ]
        for length in 0..<20 {
            for position in 0...length {
                for sample in samples {
                    let before = String(repeating: "a", count: position)
                    let string = before + String(sample) + String(repeating: "b", count: length - position)
                    let text = JSONWriter.string(.string(string))
                    #expect(text == referenceEncoding(string))
                    #expect(try JSONParser.parse(text) == .string(string))
                }
            }
        }
    }

    @Test func escapesKeys() {
        #expect(JSONWriter.string(["a\"b\n": 1]) == #"{"a\"b\n":1}"#)
    }

    @Test func writesMegabyteString() throws {
        let body = String(repeating: "abc\"def\n€", count: 100_000)
        let bytes = JSONWriter.bytes(.string(body))
        #expect(bytes.count == 2 + 100_000 * 13)
        #expect(try JSONParser.parse(bytes) == .string(body))
    }

    // MARK: Round trips

    @Test(arguments: [
        "null", "true", "false", "0", "-1", "2.5", #""""#, "[]", "{}",
        #"{"jsonrpc":"2.0","id":"abc","result":{"ok":true,"items":[1,2,3]}}"#,
        #"{"a":{"b":{"c":[[[{"d":null}]]]}},"e":-9223372036854775808,"f":1.5e-10}"#,
        #"["\u0000\"\\\n","é","😀",{"":""}]"#,
        #"{"dup":1,"dup":2,"order":[3,2,1]}"#,
    ])
    func textRoundTripsByteForByte(text: String) throws {
        #expect(JSONWriter.string(try JSONParser.parse(text)) == text)
    }

    @Test func valuesRoundTrip() throws {
        let values: [JSONValue] = [
            .string("\u{1}\u{7F}\u{10FFFF}"), .double(123456.789), .int(-42),
            ["nested": [["x": [.double(-0.5), .string("\\/")]]]],
            .array((0..<1000).map { .int($0 * 7919) }),
        ]
        for value in values {
            #expect(try JSONParser.parse(JSONWriter.bytes(value)) == value)
        }
    }

    @Test func normalizesInsignificantWhitespaceAndEscapes() throws {
        let text = " { \"a\" : [ 1 , \"\\u0041\\/\" ] } "
        #expect(JSONWriter.string(try JSONParser.parse(text)) == #"{"a":[1,"A/"]}"#)
    }
}

/// A deliberately simple, scalar-by-scalar version of the writer's string encoding.
private func referenceEncoding(_ string: String) -> String {
    var text = "\""
    for scalar in string.unicodeScalars {
        switch scalar {
        case "\"": text += "\\\""
        case "\\": text += "\\\\"
        case "\u{8}": text += "\\b"
        case "\u{C}": text += "\\f"
        case "\n": text += "\\n"
        case "\r": text += "\\r"
        case "\t": text += "\\t"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: text.unicodeScalars.append(scalar)
        }
    }
    return text + "\""
}
