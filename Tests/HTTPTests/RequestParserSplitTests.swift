import Testing
@testable import HTTP

/// Valid inputs (and a few that fail late) on which every split must give the same events.
let splitInputs: [String] = [
    "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
    "\r\nGET /x?y=%20 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    "POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
    "POST /c HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;e=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\n",
    "GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nxyz"
        + "PATCH /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nq\r\n0\r\n\r\nGET /4 HTTP/1.1\r\nHost: a\r\n\r\n",
    "GET http://h:1/a HTTP/1.1\r\nHost: h\r\nX-A:  v \r\n\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
    "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\rX",
]

/// The events of feeding `pieces` one after the other to one parser.
func events(feeding pieces: [ArraySlice<UInt8>], limits: HTTPLimits = .init()) -> [ParseEvent] {
    var parser = RequestParser(limits: limits)
    return pieces.flatMap { parser.feed($0) }
}

@Test("every two-way split and byte-by-byte feeding give the events of a single feed",
      arguments: splitInputs + rejections.map(\.raw))
func splitInvariance(_ raw: String) {
    let bytes = Array(raw.utf8)
    let limits = splitInputs.contains(raw) ? HTTPLimits() : smallLimits
    let whole = events(feeding: [bytes[...]], limits: limits)
    #expect(!whole.isEmpty)
    for cut in 0...bytes.count {
        let split = events(feeding: [bytes[..<cut], bytes[cut...]], limits: limits)
        #expect(split == whole, "split at \(cut)")
    }
    let byByte = events(feeding: bytes.indices.map { bytes[$0...$0] }, limits: limits)
    #expect(byByte == whole)
}

@Test("every three-way split of a pipelined chunked input gives the same events")
func threeWaySplitInvariance() {
    let bytes = Array(splitInputs[4].utf8)
    let whole = events(feeding: [bytes[...]])
    #expect(requests(whole).count == 4)
    var mismatches = 0
    for a in 0...bytes.count {
        for b in a...bytes.count where events(feeding: [bytes[..<a], bytes[a..<b], bytes[b...]]) != whole {
            mismatches += 1
        }
    }
    #expect(mismatches == 0)
}
