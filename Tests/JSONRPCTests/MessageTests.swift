import Testing
import JSONRPC

@Suite struct MessageTests {
    @Test func requestsKeepTheirIdExactly() {
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": 7, "method": "m"])
                == .request(id: .int(7), method: "m", params: nil))
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": "abc", "method": "m", "params": ["a": 1]])
                == .request(id: .string("abc"), method: "m", params: ["a": 1]))
        #expect(OutgoingMessage.response(id: .string("abc"), result: nil)
                == ["jsonrpc": "2.0", "id": "abc", "result": nil])
    }

    @Test func aMissingIdMakesANotificationAndANullIdARequest() {
        #expect(IncomingMessage(["jsonrpc": "2.0", "method": "m"]) == .notification(method: "m", params: nil))
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": nil, "method": "m"]) == .request(id: nil, method: "m", params: nil))
    }

    @Test func nullParamsCountAsAbsentAndExtraMembersAreIgnored() {
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": 1, "method": "shutdown", "params": nil, "x": 1])
                == .request(id: .int(1), method: "shutdown", params: nil))
    }

    static let invalidMessages: [(message: JSONValue, reason: String)] = {
        let noVersion: JSONValue = ["id": 1, "method": "m"]
        let fractionalID: JSONValue = ["jsonrpc": "2.0", "id": 1.5, "method": "m"]
        let arrayID: JSONValue = ["jsonrpc": "2.0", "id": [1], "method": "m"]
        let numberMethod: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": 3]
        let scalarParams: JSONValue = ["jsonrpc": "2.0", "id": 1, "method": "m", "params": 3]
        let noMethod: JSONValue = ["jsonrpc": "2.0", "id": 1]
        return [
            (noVersion, "\"jsonrpc\" must be \"2.0\""),
            (fractionalID, "\"id\" must be a string"),
            (arrayID, "\"id\" must be a string"),
            (numberMethod, "\"method\" must be a string"),
            (scalarParams, "\"params\" must be an object or an array"),
            (noMethod, "missing \"method\""),
            (.int(42), "a message must be an object"),
        ]
    }()

    @Test(arguments: invalidMessages)
    func invalidMessagesAreInvalidRequests(message: JSONValue, reason: String) {
        guard case .invalid(_, let error) = IncomingMessage(message) else {
            Issue.record("\(message) was accepted")
            return
        }
        #expect(error.code == .invalidRequest)
        #expect(error.message.contains(reason), "\(error.message)")
    }

    @Test func responsesFromTheClientAreRecognised() {
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": 3, "result": nil]) == .response(id: .int(3)))
        #expect(IncomingMessage(["jsonrpc": "2.0", "id": 3, "error": ["code": 1, "message": "x"]]) == .response(id: .int(3)))
    }

    @Test func errorsCarryCodeMessageAndData() {
        let error = RPCError.methodNotFound("nope")
        #expect(error.json == ["code": -32601, "message": "Method not found: nope", "data": ["method": "nope"]])
        #expect(OutgoingMessage.notification(method: "didChange", params: ["session": 1])
                == ["jsonrpc": "2.0", "method": "didChange", "params": ["session": 1]])
    }

    @Test func stringIDsAreComparedByScalarsNotCanonicalEquivalence() {
        let composed = RequestID.string("caf\u{E9}"), decomposed = RequestID.string("cafe\u{301}")
        #expect(composed != decomposed)
        #expect(Set([composed, decomposed, .string("K"), .string("\u{212A}")]).count == 4)
        #expect(composed == .string("caf\u{E9}"))
        #expect(RequestID.int(1) != .string("1"))
    }

    @Test(arguments: [RequestID.int(7), .int(-1), .string("a\"b\\c\n"), .string("caf\u{E9}")] as [RequestID?] + [nil])
    func responseBytesAreTheResponseSerialized(id: RequestID?) {
        let result: JSONValue = ["revision": 3, "state": ["email": "x@y.z", "ok": true, "n": nil]]
        #expect(OutgoingMessage.responseBytes(id: id, result: result)
                == JSONWriter.bytes(OutgoingMessage.response(id: id, result: result)))
    }

    @Test func writingPiecesGivesTheSameBytesAsAValue() {
        let value: JSONValue = ["a": [1, -2, "three"], "b": nil]
        let pieces = JSONWriter.bytes { output in
            output.append(#"{"a":["#)
            output.write(1)
            output.append(",")
            output.write(-2)
            output.append(",")
            output.write(.string("three"))
            output.append(#"],"b":"#)
            output.write(.null)
            output.append("}")
        }
        #expect(pieces == JSONWriter.bytes(value))
    }
}
