/// Turns a `Response` into the bytes of an HTTP/1.1 (or 1.0) response message (RFC 9112 §4, §6).
public enum ResponseSerializer {
    /// Serializes `response` with its status line, the handler's header fields, `Date` (when given),
    /// `Content-Length` (except for 1xx, 204 and 304, which carry no content) and `Connection`.
    ///
    /// The serializer owns framing and connection management: the handler's `Content-Length`,
    /// `Transfer-Encoding` and `Connection` fields are dropped (and `Date` too when `date` is given). A field whose
    /// name is not a token or whose value holds CR, LF or another control character is dropped, so a handler bug
    /// cannot split the response. `headOnly` (a HEAD request) keeps `Content-Length` but omits the body; a HEAD
    /// handler that returns no body may state the length itself with a valid `Content-Length`.
    /// - Parameters:
    ///   - version: the version of the status line (the request's, HTTP/1.0 or 1.1).
    ///   - keepAlive: false adds `Connection: close`; true on HTTP/1.0 adds `Connection: keep-alive`.
    ///   - date: an IMF-fixdate from `httpDate(epochSeconds:)`, or nil to send no `Date`.
    public static func serialize(_ response: Response, version: HTTPVersion = .http11, keepAlive: Bool,
                                 headOnly: Bool, date: String?) -> [UInt8] {
        let status = (100...999).contains(response.status) ? response.status : 500
        let hasContent = !(status < 200 || status == 204 || status == 304)
        var out: [UInt8] = []
        out.reserveCapacity(128 + response.headers.count * 40 + (hasContent && !headOnly ? response.body.count : 0))

        out.append(contentsOf: version == .http10 ? "HTTP/1.0 ".utf8 : "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &out)
        out.append(ASCII.space)
        out.append(contentsOf: reasonPhrase(status).utf8)
        out.append(contentsOf: crlf)

        if let date, isValidValue(date) { appendField("Date", date, to: &out) }
        var statedLength: String?
        for field in response.headers {
            if Headers.same(field.name, "Content-Length") {
                statedLength = field.value
                continue
            }
            if Headers.same(field.name, "Transfer-Encoding") || Headers.same(field.name, "Connection")
                || (date != nil && Headers.same(field.name, "Date")) { continue }
            guard isValidName(field.name), isValidValue(field.value) else { continue }
            appendField(field.name, field.value, to: &out)
        }

        if hasContent {
            out.append(contentsOf: "Content-Length: ".utf8)
            if headOnly, response.body.isEmpty, let stated = statedLength, !stated.isEmpty, stated.utf8.count <= 18,
               stated.utf8.allSatisfy({ (0x30...0x39).contains($0) }) {
                out.append(contentsOf: stated.utf8)
            } else {
                appendDecimal(response.body.count, to: &out)
            }
            out.append(contentsOf: crlf)
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if version == .http10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: crlf)
        if hasContent && !headOnly { out.append(contentsOf: response.body) }
        return out
    }

    private static let crlf: [UInt8] = [ASCII.cr, ASCII.lf]

    private static func appendField(_ name: String, _ value: String, to out: inout [UInt8]) {
        out.append(contentsOf: name.utf8)
        out.append(ASCII.colon)
        out.append(ASCII.space)
        out.append(contentsOf: value.utf8)
        out.append(contentsOf: crlf)
    }

    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        out.append(contentsOf: String(n).utf8)  // a small string: no allocation
    }

    /// A field name must be a non-empty token (RFC 9110 §5.1).
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(ASCII.isTokenChar)
    }

    /// A field value must hold no CR, LF, NUL or other control character except HTAB (RFC 9110 §5.5).
    static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy(ASCII.isFieldValueChar)
    }
}
