/// Encodes framed requests.
enum Requests {
    private static let header = StaticBytes("Content-Length: ")
    private static let headerEnd = StaticBytes("\r\n\r\n")
    private static let setFieldHead = StaticBytes(#"{"jsonrpc":"2.0","id":"#)
    private static let setFieldMiddle = StaticBytes(#","method":"setField","params":{"session":"#)
    private static let setValid = StaticBytes(#","field":"email","value":"ada@example.com"}}"#)
    private static let setInvalid = StaticBytes(#","field":"email","value":"not-an-email"}}"#)

    /// `setField` of `email` on an email session: a valid address when `valid`, an invalid one
    /// otherwise. Alternating the two changes `isValid` and `validationMessage` every time.
    @inline(__always)
    static func appendSetEmail(id: Int, session: Int, valid: Bool, to out: ByteBuffer) {
        let tail = valid ? setValid : setInvalid
        let length = setFieldHead.count + decimalCount(id) + setFieldMiddle.count + decimalCount(session) + tail.count
        out.append(header)
        out.appendDecimal(length)
        out.append(headerEnd)
        out.append(setFieldHead)
        out.appendDecimal(id)
        out.append(setFieldMiddle)
        out.appendDecimal(session)
        out.append(tail)
    }

    /// Any request; `params` is JSON text.
    static func append(id: Int, method: String, params: String, to out: ByteBuffer) {
        let body = Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"#.utf8)
        out.append(header)
        out.appendDecimal(body.count)
        out.append(headerEnd)
        out.append(body)
    }

    static func encode(id: Int, method: String, params: String) -> [UInt8] {
        let out = ByteBuffer()
        append(id: id, method: method, params: params, to: out)
        return out.bytes
    }
}
