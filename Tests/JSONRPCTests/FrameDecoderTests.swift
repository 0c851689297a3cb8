import Testing
import JSONRPC

@Suite struct FrameDecoderTests {
    func lsp(_ body: String) -> [UInt8] { Array("Content-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8) }

    func drain(_ decoder: inout FrameDecoder) -> [FrameEvent] {
        var events: [FrameEvent] = []
        while let event = decoder.next() { events.append(event) }
        return events
    }

    func frames(_ bodies: String...) -> [FrameEvent] { bodies.map { .frame(Array($0.utf8)) } }

    @Test func detectsLSPFramingFromTheFirstByte() {
        var decoder = FrameDecoder()
        decoder.append(lsp("{\"a\":1}"))
        #expect(drain(&decoder) == frames("{\"a\":1}"))
        #expect(decoder.framing == .contentLength)
    }

    @Test func detectsNewlineDelimitedFramingFromTheFirstByte() {
        var decoder = FrameDecoder()
        decoder.append(Array("\n  [1]\r\n{\"b\":2}\n\n".utf8))
        #expect(drain(&decoder) == frames("[1]", "{\"b\":2}"))
        #expect(decoder.framing == .newlineDelimited)
    }

    @Test func severalFramesInOneRead() {
        var decoder = FrameDecoder()
        decoder.append(lsp("{\"id\":1}") + lsp("{\"id\":2}") + lsp("{\"id\":3}"))
        #expect(drain(&decoder) == frames("{\"id\":1}", "{\"id\":2}", "{\"id\":3}"))
    }

    /// The header names the body's length in decimal, whatever its number of digits.
    @Test(arguments: [0, 1, 9, 10, 99, 100, 12_345, 1_000_000])
    func theHeaderNamesTheLength(_ length: Int) {
        var stream: [UInt8] = [1, 2]
        Framing.contentLength.frame(Array(repeating: UInt8(ascii: " "), count: length), into: &stream)
        #expect(stream.count == 2 + "Content-Length: \(length)\r\n\r\n".utf8.count + length)
        #expect(Array(stream[2..<(2 + 20 + String(length).count)]) == Array("Content-Length: \(length)\r\n\r\n".utf8))
    }

    @Test(arguments: [1, 2, 3, 7, 16])
    func anySplitOfTheStreamGivesTheSameFrames(chunkSize: Int) {
        let bodies = ["{\"id\":1,\"method\":\"a\"}", "{\"text\":\"ünïcödé ✓\"}", "[]"]
        for framing in [Framing.contentLength, .newlineDelimited] {
            var stream: [UInt8] = []
            for body in bodies { framing.frame(Array(body.utf8), into: &stream) }
            var decoder = FrameDecoder()
            var events: [FrameEvent] = []
            var offset = 0
            while offset < stream.count {
                decoder.append(Array(stream[offset..<min(offset + chunkSize, stream.count)]))
                events += drain(&decoder)
                offset += chunkSize
            }
            #expect(events == bodies.map { .frame(Array($0.utf8)) }, "\(framing), chunks of \(chunkSize)")
        }
    }

    @Test func otherHeadersAreIgnoredAndNamesAreCaseInsensitive() {
        var decoder = FrameDecoder()
        let body = "{\"x\":true}"
        decoder.append(Array("Content-Type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        #expect(drain(&decoder) == frames(body))
    }

    @Test func bareNewlineHeadersAreAccepted() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: 2\n\n{}".utf8))
        #expect(drain(&decoder) == frames("{}"))
    }

    @Test func aBadHeaderIsReportedAndTheNextFrameStillArrives() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: abc\r\n\r\n".utf8) + lsp("{}"))
        let events = drain(&decoder)
        #expect(events.count == 2)
        guard case .error(let message) = events.first else { Issue.record("expected an error"); return }
        #expect(message.contains("abc"))
        #expect(events.last == .frame(Array("{}".utf8)))
    }

    @Test func aMissingContentLengthIsReported() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Type: x\r\n\r\n".utf8))
        #expect(drain(&decoder) == [.error("a header block without Content-Length")])
    }

    @Test func conflictingContentLengthsAreReported() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}".utf8))
        #expect(drain(&decoder).first == .error("two different Content-Length headers: 2 and 3"))
    }

    @Test func anOversizedBodyIsSkippedWithoutBeingBuffered() {
        var decoder = FrameDecoder(maximumMessageSize: 10)
        decoder.append(Array("Content-Length: 20\r\n\r\n".utf8))
        guard case .error(let message)? = decoder.next() else { Issue.record("expected an error"); return }
        #expect(message.contains("maximum message size"))
        decoder.append(Array(repeating: UInt8(ascii: "x"), count: 20) + lsp("{}"))
        #expect(drain(&decoder) == frames("{}"))
    }

    @Test func aStreamCutInsideAFrameIsReportedAtTheEnd() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: 10\r\n\r\n{\"a\"".utf8))
        #expect(drain(&decoder).isEmpty)
        guard case .error(let message)? = decoder.finish() else { Issue.record("expected an error"); return }
        #expect(message == "the stream ended inside a frame: 4 of 10 body bytes arrived")
    }

    @Test func aLastLineWithoutItsNewlineIsStillAMessage() {
        var decoder = FrameDecoder()
        decoder.append(Array("{\"a\":1}\n{\"b\":2}".utf8))
        #expect(drain(&decoder) == frames("{\"a\":1}"))
        #expect(decoder.finish() == .frame(Array("{\"b\":2}".utf8)))
    }

    @Test func writingFramesUsesOnlyTheContentLengthHeader() {
        var buffer: [UInt8] = []
        Framing.contentLength.frame(Array("{}".utf8), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "Content-Length: 2\r\n\r\n{}")
        buffer = []
        Framing.newlineDelimited.frame(Array("{}".utf8), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "{}\n")
    }

    @Test func aLineThatIsNotAHeaderIsReportedAndSkipped() {
        var decoder = FrameDecoder()
        decoder.append(lsp("{}") + Array("garbage here\n{\"id\":1}\n".utf8) + lsp("[]"))
        let events = drain(&decoder)
        #expect(events.count == 4)
        #expect(events.first == .frame(Array("{}".utf8)))
        #expect(events.dropFirst().first == .error("expected a header line, found \"garbage here\""))
        #expect(events.dropFirst(2).first == .error("expected a Content-Length header, found a JSON text: the framing cannot change mid-stream"))
        #expect(events.last == .frame(Array("[]".utf8)))
    }

    @Test func aHeaderBlockWithoutEndIsDroppedPastEightKilobytes() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: 2\r\n".utf8) + Array(repeating: UInt8(ascii: "X"), count: 9000))
        guard case .error(let message)? = decoder.next() else { Issue.record("expected an error"); return }
        #expect(message == "a header block longer than 8192 bytes without a blank line")
        decoder.append(lsp("{}"))
        #expect(drain(&decoder) == frames("{}"))
    }

    /// Fuzz finding 1: the tail of an over-long line came out as a message of its own.
    @Test func theTailOfAnOverlongLineIsDiscarded() {
        var decoder = FrameDecoder(maximumMessageSize: 8)
        decoder.append(Array(#"{"a":"0123"#.utf8))
        guard case .error? = decoder.next() else { Issue.record("expected an error"); return }
        decoder.append(Array("456789\"}\n[1]\n".utf8))
        #expect(drain(&decoder) == frames("[1]"))
        #expect(decoder.finish() == nil)
    }

    /// Fuzz finding 2: a header block over 8 KiB was accepted when it arrived in one read.
    @Test func theHeaderLimitHoldsWhateverTheReads() {
        var decoder = FrameDecoder()
        decoder.append(Array("Content-Length: 2\r\nX-Pad: \(String(repeating: "a", count: 9000))\r\n\r\n{}".utf8))
        #expect(decoder.next() == .error("a header block longer than 8192 bytes without a blank line"))
    }

    /// Fuzz finding 3: a long line arriving in many small reads is scanned once, not once per read.
    @Test func aLongLineInSmallReadsIsStillOneFrame() {
        var decoder = FrameDecoder()
        let body = "[" + String(repeating: "1,", count: 200_000) + "1]"
        var events: [FrameEvent] = []
        for chunk in Array((body + "\n").utf8).chunks(of: 512) {
            decoder.append(Array(chunk))
            events += drain(&decoder)
        }
        #expect(events == frames(body))
    }
}

extension Array {
    fileprivate func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min($0 + size, count)] }
    }
}
