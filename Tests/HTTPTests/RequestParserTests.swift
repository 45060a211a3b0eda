import Testing
@testable import HTTP

/// Feeds `raw` at once and returns the events.
func parseAll(_ raw: String, limits: HTTPLimits = .init()) -> [ParseEvent] {
    var parser = RequestParser(limits: limits)
    return parser.feed(Array(raw.utf8))
}

/// The requests among `events`.
func requests(_ events: [ParseEvent]) -> [Request] {
    events.compactMap { if case .request(let r) = $0 { r } else { nil } }
}

@Test func parsesSimpleGet() throws {
    let events = parseAll("GET /a/b?c=d HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n")
    #expect(events.count == 1)
    let r = try #require(requests(events).first)
    #expect(r.method == "GET")
    #expect(r.target == "/a/b?c=d")
    #expect(r.path == "/a/b")
    #expect(r.query == "c=d")
    #expect(r.version == .http11)
    #expect(r.headers.fields == [.init(name: "Host", value: "example.com"), .init(name: "Accept", value: "*/*")])
    #expect(r.body.isEmpty)
    #expect(r.keepAlive)
}

@Test func parsesPostWithContentLength() throws {
    let r = try #require(requests(parseAll("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world")).first)
    #expect(r.method == "POST")
    #expect(r.body == Array("hello world".utf8))
    #expect(r.headers["content-length"] == "11")
}

@Test func parsesChunkedBodyWithExtensionsAndTrailers() throws {
    let raw = "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"
        + "5;name=value\r\nhello\r\n1 ; x\r\n,\r\n0006\r\n world\r\n0\r\nX-Checksum: abc\r\nX-Other: d\r\n\r\n"
    let events = parseAll(raw)
    #expect(events.count == 1)
    let r = try #require(requests(events).first)
    #expect(r.body == Array("hello, world".utf8))
    #expect(!r.headers.contains("X-Checksum"), "trailers are discarded")
    #expect(r.headers["Transfer-Encoding"] == "Chunked")
}

@Test func parsesEmptyChunkedBody() throws {
    let r = try #require(requests(parseAll("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")).first)
    #expect(r.body.isEmpty)
}

@Test func parsesPipelinedRequestsInOrder() throws {
    let raw = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
        + "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
        + "PUT /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nxy\r\n0\r\n\r\n"
    let rs = requests(parseAll(raw))
    #expect(rs.map(\.target) == ["/1", "/2", "/3"])
    #expect(rs.map(\.method) == ["GET", "POST", "PUT"])
    #expect(rs.map(\.body) == [[], Array("abc".utf8), Array("xy".utf8)])
}

@Test func parsesHeadAndHTTP10WithoutHost() throws {
    let head = try #require(requests(parseAll("HEAD /f HTTP/1.1\r\nHost: a\r\n\r\n")).first)
    #expect(head.method == "HEAD")
    let old = try #require(requests(parseAll("GET / HTTP/1.0\r\n\r\n")).first)
    #expect(old.version == .http10)
    #expect(old.headers.count == 0)
}

@Test func trimsOptionalWhitespaceAndKeepsRepeatsAndObsText() throws {
    let raw = "GET / HTTP/1.1\r\nHost: a\r\nX-A: \t b c \t\r\nX-Empty:\r\nx-a: second\r\nX-Latin: caf\u{E9}\r\n\r\n"
    let r = try #require(requests(parseAll(raw)).first)
    #expect(r.headers.values("X-A") == ["b c", "second"])
    #expect(r.headers["X-Empty"] == "")
    #expect(r.headers["X-Latin"] == "café")
}

@Test func skipsEmptyLinesBeforeTheRequestLine() throws {
    let rs = requests(parseAll("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n\r\nGET /2 HTTP/1.1\r\nHost: a\r\n\r\n"))
    #expect(rs.map(\.target) == ["/", "/2"])
}

@Test func reducesAbsoluteFormAndTakesItsAuthorityAsHost() throws {
    let r = try #require(requests(parseAll("GET http://example.com:8080/p?q=1 HTTP/1.1\r\nHost: other\r\n\r\n")).first)
    #expect(r.target == "/p?q=1")
    #expect(r.headers.values("Host") == ["example.com:8080"])
    let bare = try #require(requests(parseAll("GET https://h.example?x HTTP/1.1\r\nHost: h\r\n\r\n")).first)
    #expect(bare.target == "/?x")
}

@Test func acceptsAsteriskFormForOptions() throws {
    let r = try #require(requests(parseAll("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n")).first)
    #expect(r.target == "*")
}

@Test func announcesExpectContinueBeforeTheBody() throws {
    var parser = RequestParser()
    let head = parser.feed(Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 4\r\n\r\n".utf8))
    #expect(head == [.expectContinue])
    #expect(parser.phase == .body)
    let rest = parser.feed(Array("abcd".utf8))
    #expect(requests(rest).first?.body == Array("abcd".utf8))
    #expect(rest.count == 1)

    let chunked = parseAll("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
    #expect(chunked.first == .expectContinue)
    #expect(requests(chunked).count == 1)
}

@Test("no 100 Continue without a body or on HTTP/1.0", arguments: [
    "POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
    "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
    "POST / HTTP/1.0\r\nExpect: whatever\r\nContent-Length: 1\r\n\r\nx",
])
func noExpectContinue(_ raw: String) {
    let events = parseAll(raw)
    #expect(events.count == 1)
    #expect(requests(events).count == 1)
}

@Test("keep-alive rules", arguments: [
    ("1.1", [], true), ("1.1", ["close"], false), ("1.1", ["Keep-Alive, CLOSE"], false), ("1.1", ["upgrade", "close"], false),
    ("1.1", ["keep-alive"], true), ("1.0", [], false), ("1.0", ["keep-alive"], true), ("1.0", ["Keep-Alive"], true),
    ("1.0", ["foo,  keep-alive "], true), ("1.0", ["keep-alive", "close"], false), ("1.0", ["keep-alived"], false),
] as [(String, [String], Bool)])
func keepAliveRules(version: String, connection: [String], expected: Bool) throws {
    var raw = "GET / HTTP/\(version)\r\nHost: a\r\n"
    for value in connection { raw += "Connection: \(value)\r\n" }
    let r = try #require(requests(parseAll(raw + "\r\n")).first)
    #expect(r.keepAlive == expected)
}

@Test func acceptsInputsExactlyAtTheLimits() {
    let line = "GET /" + String(repeating: "a", count: 64 - 14) + " HTTP/1.1"
    #expect(line.utf8.count == 64)
    #expect(requests(parseAll(line + "\r\nHost: a\r\n\r\n", limits: smallLimits)).count == 1)
    // 9 bytes for "Host: a\r\n", 5 + n for "X: …\r\n": 128 in all.
    let header = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 114) + "\r\n\r\n"
    #expect(requests(parseAll(header, limits: smallLimits)).count == 1)
    let oneMore = "GET / HTTP/1.1\r\nHost: a\r\nX: " + String(repeating: "b", count: 115) + "\r\n\r\n"
    #expect(parseAll(oneMore, limits: smallLimits) == [.error(HTTPParseError(status: 431, reason: "header section too large"))])
    let fourFields = "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
    #expect(requests(parseAll(fourFields, limits: smallLimits)).count == 1)
    let body = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 16\r\n\r\n" + String(repeating: "z", count: 16)
    #expect(requests(parseAll(body, limits: smallLimits)).first?.body.count == 16)
    let chunks = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n"
    #expect(requests(parseAll(chunks, limits: smallLimits)).first?.body.count == 16)
}

@Test func reportsItsPhase() {
    var parser = RequestParser()
    #expect(parser.phase == .idle)
    _ = parser.feed(Array("POST / HTT".utf8))
    #expect(parser.phase == .head)
    _ = parser.feed(Array("P/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\na".utf8))
    #expect(parser.phase == .body)
    let events = parser.feed(Array("b".utf8))
    #expect(requests(events).count == 1)
    #expect(parser.phase == .idle)
}

@Test func namesTheReasonOfARejection() {
    let both = parseAll("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n")
    #expect(both == [.error(HTTPParseError(status: 400, reason: "both Content-Length and Transfer-Encoding"))])
    #expect(parseAll("GET / HTTP/1.1\r\n\r\n") == [.error(HTTPParseError(status: 400, reason: "missing Host"))])
}

@Test func keepsLargeBodiesFedInPiecesIntact() throws {
    var parser = RequestParser()
    let body = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    var events = parser.feed(Array("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 200000\r\n\r\n".utf8))
    var offset = 0
    while offset < body.count {
        let n = min(1 + offset % 4093, body.count - offset)
        events += parser.feed(body[offset..<(offset + n)])
        offset += n
    }
    let r = try #require(requests(events).first)
    #expect(r.body == body)
}

@Test("Host values", arguments: [
    ("example.com", true), ("example.com:8080", true), ("[::1]:80", true), ("", true), ("a_b-c.d~e", true),
    ("a b", false), ("a/b", false), ("u@h", false), ("h\"", false), ("h<", false),
] as [(String, Bool)])
func hostValues(_ host: String, valid: Bool) {
    let events = parseAll("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")
    #expect(events == (valid ? events.filter { if case .request = $0 { true } else { false } }
                             : [.error(HTTPParseError(status: 400, reason: "invalid Host"))]))
    #expect(events.count == 1)
}

@Test func feedingALongHeaderByteByByteStaysLinear() throws {
    // 16 000 one-byte feeds of one header line: a parser that rescans or recopies its buffer on every feed does
    // ~128 M byte operations here; a linear one does ~16 k. Measured by the bytes the parser holds, not by time.
    var parser = RequestParser()
    _ = parser.feed(Array("GET / HTTP/1.1\r\nHost: a\r\nX-Long: ".utf8))
    for _ in 0..<16_000 { #expect(parser.feed(CollectionOfOne(UInt8(ascii: "v"))).isEmpty) }
    #expect(parser.lineScanned == parser.buffer.count, "every buffered byte was scanned once and not again")
    #expect(parser.buffer.capacity < 2 * parser.buffer.count + 64)
    let events = parser.feed(Array("\r\n\r\n".utf8))
    let r = try #require(requests(events).first)
    #expect(r.headers["X-Long"]?.utf8.count == 16_000)
}
