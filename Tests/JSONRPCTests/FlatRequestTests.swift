import Testing
import JSONRPC

/// The hot path's scan must mean what the general parser means, or decline.
@Suite struct FlatRequestTests {
    static let accepted = [
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"field":"email","value":"ada@example.com"}}"#,
        #" { "params" : { "value" : "" , "field":"email","session":12 } , "method":"setField", "id":-3 ,"jsonrpc":"2.0" } "#,
        #"{"jsonrpc":"2.0","id":0,"method":"invoke","params":{"session":2,"command":"save","flag":true,"other":false,"none":null}}"#,
        #"{"jsonrpc":"2.0","id":1,"method":"session/state","params":{}}"#,
    ]

    static let declined = [
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"field":"email","value":"a\"b"}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"field":"email","value":"é"}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"value":1.5}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"value":1e3}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":-0}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":01}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"session":1,"session":2}}"#,
        #"{"jsonrpc":"2.0","id":7,"id":8,"method":"setField","params":{}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"value":[1]}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"value":{}}}"#,
        #"{"jsonrpc":"2.0","id":"7","method":"setField","params":{}}"#,
        #"{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":7}}"#,
        #"{"jsonrpc":"1.0","id":7,"method":"setField","params":{}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{},"extra":1}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{"value":truex}}"#,
        #"{"jsonrpc":"2.0","id":7,"method":"setField","params":{}} x"#,
        #"{"jsonrpc":"2.0","id":1234567890123456789,"method":"setField","params":{}}"#,
        #"[{"jsonrpc":"2.0","id":7,"method":"setField","params":{}}]"#,
        // More members than a flat request holds inline.
        #"{"jsonrpc":"2.0","id":7,"method":"m","params":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7}}"#,
    ]

    @Test(arguments: accepted)
    func readsWhatTheParserReads(_ text: String) throws {
        let body = Array(text.utf8)
        let flat = try #require(FlatRequest(body))
        let general = IncomingMessage(try JSONParser.parse(body))
        #expect(general == .request(id: .int(flat.id), method: flat.method, params: .object(flat.params.object)))
        #expect(flat.bodySize == body.count)
    }

    @Test(arguments: declined)
    func declinesAnythingElse(_ text: String) {
        #expect(FlatRequest(Array(text.utf8)) == nil)
    }

    /// A connection's decoder reads a flat request where it lies in its buffer, with its body
    /// only when asked; anything else is handed over as before.
    @Test func theDecoderReadsAFlatRequestInPlace() throws {
        let flat = Array(Self.accepted[0].utf8), general = Array(#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1]}"#.utf8)
        for keepingBody in [false, true] {
            var decoder = FrameDecoder()
            for body in [flat, general] { decoder.append(Array("Content-Length: \(body.count)\r\n\r\n".utf8) + body) }
            decoder.append(Array("Content-Length: x\r\n\r\n".utf8))
            guard case .request(let request, let body)? = decoder.nextInbound(maximumDepth: 8, keepingBody: keepingBody) else {
                Issue.record("the flat request was not read flat")
                return
            }
            #expect(request.id == 7 && request.method == "setField" && request.params["field"] == "email")
            #expect(body == (keepingBody ? flat : []))
            guard case .message(let json, let generalBody)? = decoder.nextInbound(maximumDepth: 8, keepingBody: keepingBody) else {
                Issue.record("the general request was not parsed")
                return
            }
            #expect(json == (try JSONParser.parse(general)) && generalBody == general)
            guard case .malformed? = decoder.nextInbound(maximumDepth: 8, keepingBody: keepingBody) else {
                Issue.record("a malformed frame was not reported")
                return
            }
        }
    }
}
