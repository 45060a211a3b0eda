import Testing
@testable import HTTP

/// Every shape the parser must refuse, with the status it must answer.
struct RejectionCase: Sendable, CustomTestStringConvertible {
    let name: String
    let raw: String
    let status: Int
    var testDescription: String { name }
}

let smallLimits = HTTPLimits(maxRequestLineBytes: 64, maxHeaderBytes: 128, maxHeaderCount: 4, maxBodyBytes: 16,
                             maxChunkSizeLineBytes: 32)

let rejections: [RejectionCase] = [
    .init(name: "both Content-Length and Transfer-Encoding",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", status: 400),
    .init(name: "Transfer-Encoding then Content-Length",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", status: 400),
    .init(name: "repeated equal Content-Length",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", status: 400),
    .init(name: "repeated different Content-Length",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", status: 400),
    .init(name: "Content-Length list", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3, 3\r\n\r\nabc", status: 400),
    .init(name: "Content-Length signed", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +3\r\n\r\nabc", status: 400),
    .init(name: "Content-Length negative", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", status: 400),
    .init(name: "Content-Length hex", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x3\r\n\r\nabc", status: 400),
    .init(name: "Content-Length empty", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", status: 400),
    .init(name: "Content-Length inner space", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1 2\r\n\r\n", status: 400),
    .init(name: "obs-fold", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n", status: 400),
    .init(name: "obs-fold with tab", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n\tc\r\n\r\n", status: 400),
    .init(name: "bare CR in header", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\rc\r\n\r\n", status: 400),
    .init(name: "bare CR in request line", raw: "GET /\r HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "CR CR LF", raw: "GET / HTTP/1.1\r\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "bare LF line ending", raw: "GET / HTTP/1.1\nHost: a\n\n", status: 400),
    .init(name: "bare LF after headers", raw: "GET / HTTP/1.1\r\nHost: a\r\n\n", status: 400),
    .init(name: "bare LF leading line", raw: "\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "invalid method char", raw: "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "empty method", raw: " / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "double space", raw: "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "no version", raw: "GET /\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "lower-case version", raw: "GET / http/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "malformed version", raw: "GET / HTTP/1.10\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "HTTP/2.0", raw: "GET / HTTP/2.0\r\nHost: a\r\n\r\n", status: 505),
    .init(name: "HTTP/0.9", raw: "GET / HTTP/0.9\r\n\r\n", status: 505),
    .init(name: "HTTP/1.2", raw: "GET / HTTP/1.2\r\nHost: a\r\n\r\n", status: 505),
    .init(name: "target with fragment", raw: "GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "target with control", raw: "GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "target non-ASCII", raw: "GET /é HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "authority-form", raw: "CONNECT example.com:443 HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "asterisk outside OPTIONS", raw: "GET * HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "absolute-form with userinfo", raw: "GET http://u@h/ HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "absolute-form without authority", raw: "GET http:///x HTTP/1.1\r\nHost: a\r\n\r\n", status: 400),
    .init(name: "invalid header name char", raw: "GET / HTTP/1.1\r\nHost: a\r\nX(A): b\r\n\r\n", status: 400),
    .init(name: "header name with space", raw: "GET / HTTP/1.1\r\nHost: a\r\nX A: b\r\n\r\n", status: 400),
    .init(name: "whitespace before colon", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A : b\r\n\r\n", status: 400),
    .init(name: "Content-Length space before colon",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length : 3\r\n\r\nabc", status: 400),
    .init(name: "empty header name", raw: "GET / HTTP/1.1\r\nHost: a\r\n: b\r\n\r\n", status: 400),
    .init(name: "header without colon", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A\r\n\r\n", status: 400),
    .init(name: "NUL in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{0}c\r\n\r\n", status: 400),
    .init(name: "DEL in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\u{7F}\r\n\r\n", status: 400),
    .init(name: "escape in header value", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: \u{1B}[31m\r\n\r\n", status: 400),
    .init(name: "missing Host on 1.1", raw: "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", status: 400),
    .init(name: "two Host fields", raw: "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400),
    .init(name: "two Host fields on 1.0", raw: "GET / HTTP/1.0\r\nHost: a\r\nhost: a\r\n\r\n", status: 400),
    .init(name: "Transfer-Encoding gzip", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", status: 501),
    .init(name: "gzip then chunked",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", status: 501),
    .init(name: "chunked not last",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n", status: 400),
    .init(name: "chunked twice", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
          status: 400),
    .init(name: "Transfer-Encoding empty", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: \r\n\r\n", status: 400),
    .init(name: "Transfer-Encoding chunked with parameter",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked;q=1\r\n\r\n", status: 501),
    .init(name: "Transfer-Encoding on HTTP/1.0",
          raw: "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", status: 400),
    .init(name: "invalid chunk size", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", status: 400),
    .init(name: "empty chunk size", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n\r\n", status: 400),
    .init(name: "chunk size with junk", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5 x\r\n", status: 400),
    .init(name: "chunk size signed", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n", status: 400),
    .init(name: "chunk size bare LF", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n", status: 400),
    .init(name: "chunk data too long",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n", status: 400),
    .init(name: "chunk extension with control",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2;a\u{1}\r\nab\r\n0\r\n\r\n", status: 400),
    .init(name: "trailer obs-fold",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: a\r\n b\r\n\r\n", status: 400),
    .init(name: "unknown expectation", raw: "POST / HTTP/1.1\r\nHost: a\r\nExpect: magic\r\nContent-Length: 1\r\n\r\nx", status: 417),
    .init(name: "request line over limit", raw: "GET /" + String(repeating: "a", count: 60) + " HTTP/1.1\r\nHost: a\r\n\r\n",
          status: 414),
    .init(name: "request line over limit without end", raw: "GET /" + String(repeating: "a", count: 80), status: 414),
    .init(name: "header bytes over limit", raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + String(repeating: "b", count: 120) + "\r\n\r\n",
          status: 431),
    .init(name: "header bytes over limit in many fields",
          raw: "GET / HTTP/1.1\r\nHost: a\r\nX-A: " + String(repeating: "b", count: 40) + "\r\nX-B: " + String(repeating: "b", count: 40)
            + "\r\nX-C: " + String(repeating: "b", count: 40) + "\r\n\r\n", status: 431),
    .init(name: "header count over limit", raw: "GET / HTTP/1.1\r\nHost: a\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n", status: 431),
    .init(name: "trailer count over limit",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\n\r\n", status: 431),
    .init(name: "declared body over limit", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 17\r\n\r\n", status: 413),
    .init(name: "huge Content-Length", raw: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n",
          status: 413),
    .init(name: "chunked body over limit",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n9\r\n123456789\r\n0\r\n\r\n", status: 413),
    .init(name: "huge chunk size", raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffffffff\r\n",
          status: 413),
    .init(name: "chunk size line over limit",
          raw: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1;" + String(repeating: "e", count: 40) + "\r\n", status: 400),
    .init(name: "too many empty lines before the request", raw: String(repeating: "\r\n", count: 40), status: 400),
    .init(name: "second pipelined request bad", raw: "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\n\r\n", status: 400),
]

@Test("the parser rejects", arguments: rejections)
func rejects(_ c: RejectionCase) throws {
    var parser = RequestParser(limits: smallLimits)
    let events = parser.feed(Array(c.raw.utf8))
    let last = try #require(events.last)
    guard case .error(let error) = last else {
        Issue.record("expected an error, got \(events)")
        return
    }
    #expect(error.status == c.status, "\(error.reason)")
    #expect(events.dropLast().allSatisfy { if case .error = $0 { false } else { true } })
    #expect(parser.phase == .failed)
    // After an error the parser stays failed and silent.
    #expect(parser.feed(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8)).isEmpty)
}
