import Testing
@testable import HTTP

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

@Test func serializesAResponseWithDateAndLength() {
    let response = Response(status: 200, contentType: "text/plain", body: "hi")
    let out = ResponseSerializer.serialize(response, keepAlive: true, headOnly: false, date: "Sun, 06 Nov 1994 08:49:37 GMT")
    #expect(text(out) == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/plain\r\n"
        + "Content-Length: 2\r\n\r\nhi")
}

@Test func addsConnectionHeadersByVersionAndKeepAlive() {
    let response = Response(status: 404, body: [])
    #expect(text(ResponseSerializer.serialize(response, keepAlive: false, headOnly: false, date: nil))
        == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    #expect(text(ResponseSerializer.serialize(response, version: .http10, keepAlive: true, headOnly: false, date: nil))
        == "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: keep-alive\r\n\r\n")
    #expect(text(ResponseSerializer.serialize(response, version: .http10, keepAlive: false, headOnly: false, date: nil))
        == "HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

@Test func keepsTheLengthButNotTheBodyForHead() {
    let response = Response(status: 200, body: Array("twelve bytes".utf8))
    #expect(text(ResponseSerializer.serialize(response, keepAlive: true, headOnly: true, date: nil))
        == "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n")
    let stated = Response(status: 200, headers: ["Content-Length": "345"], body: [])
    #expect(text(ResponseSerializer.serialize(stated, keepAlive: true, headOnly: true, date: nil))
        == "HTTP/1.1 200 OK\r\nContent-Length: 345\r\n\r\n")
}

@Test("statuses without content get neither length nor body", arguments: [100, 101, 204, 304])
func noContentStatuses(_ status: Int) {
    let out = text(ResponseSerializer.serialize(Response(status: status, body: [1, 2, 3]), keepAlive: true, headOnly: false,
                                                date: nil))
    #expect(out == "HTTP/1.1 \(status) \(ResponseSerializer.reasonPhrase(status))\r\n\r\n")
}

@Test func dropsFieldsThatWouldSplitTheResponseAndFieldsItOwns() {
    let headers: Headers = [
        "X-Good": "ok", "X-Bad": "a\r\nSet-Cookie: evil=1", "X-LF": "a\nb", "X-NUL": "a\u{0}", "Bad Name": "v",
        "X\r\nInjected": "v", "Content-Length": "999", "Transfer-Encoding": "chunked", "Connection": "upgrade",
        "Date": "yesterday", "X-Tab": "a\tb",
    ]
    let out = text(ResponseSerializer.serialize(Response(status: 201, headers: headers, body: Array("x".utf8)),
                                                keepAlive: true, headOnly: false, date: "D"))
    #expect(out == "HTTP/1.1 201 Created\r\nDate: D\r\nX-Good: ok\r\nX-Tab: a\tb\r\nContent-Length: 1\r\n\r\nx")
}

@Test func keepsRepeatedFieldsInOrder() {
    let headers = Headers([("Set-Cookie", "a=1"), ("X", "y"), ("Set-Cookie", "b=2")])
    let out = text(ResponseSerializer.serialize(Response(status: 200, headers: headers), keepAlive: true, headOnly: false,
                                                date: nil))
    #expect(out == "HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nX: y\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n")
}

@Test func writesUnknownAndInvalidStatuses() {
    #expect(text(ResponseSerializer.serialize(Response(status: 299), keepAlive: true, headOnly: false, date: nil))
        == "HTTP/1.1 299 \r\nContent-Length: 0\r\n\r\n")
    #expect(text(ResponseSerializer.serialize(Response(status: 42), keepAlive: true, headOnly: false, date: nil))
        .hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
}

@Test("IMF-fixdate", arguments: [
    (0, "Thu, 01 Jan 1970 00:00:00 GMT"), (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
    (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"), (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
    (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"), (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
])
func formatsHTTPDates(seconds: Int, expected: String) {
    #expect(ResponseSerializer.httpDate(epochSeconds: seconds) == expected)
    #expect(ResponseSerializer.parseHTTPDate(expected) == seconds)
}

@Test func parsesTheObsoleteDateFormats() {
    #expect(ResponseSerializer.parseHTTPDate("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
    #expect(ResponseSerializer.parseHTTPDate("Sun Nov  6 08:49:37 1994") == 784_111_777)
    #expect(ResponseSerializer.parseHTTPDate("Thu Feb 29 00:00:00 2024") == 1_709_164_800)
    #expect(ResponseSerializer.parseHTTPDate("Tuesday, 14-Nov-23 22:13:20 GMT") == 1_700_000_000)
}

@Test("invalid HTTP-dates", arguments: [
    "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
    "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
    "Xyz, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT ",
    "sun, 06 nov 1994 08:49:37 GMT", "Sun Nov 6 08:49:37 1994", "Sun, 00 Nov 1994 08:49:37 GMT",
])
func rejectsInvalidDates(_ s: String) {
    #expect(ResponseSerializer.parseHTTPDate(s) == nil)
}

@Test func roundTripsDatesAcrossCenturies() {
    var t = -2_208_988_800  // 1900-01-01
    var failures = 0
    while t < 4_102_444_800 {  // 2100-01-01
        if ResponseSerializer.parseHTTPDate(ResponseSerializer.httpDate(epochSeconds: t)) != t { failures += 1 }
        t += 86_399 * 3 + 17
    }
    #expect(failures == 0)
}
