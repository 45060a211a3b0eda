/// Body framing: the transfer-coding decision and the chunk-size line of the chunked coding (RFC 9112 §7.1).
extension RequestParser {
    /// How a request's body is delimited.
    enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
    }

    /// Only a single `chunked` is served. `chunked` that is not the final coding, or is applied twice, makes the
    /// length undeterminable: 400 (RFC 9112 §6.3). Any other coding is not implemented: 501 (RFC 9112 §6.1).
    static func framing(transferCodings codings: [Substring]) throws(HTTPParseError) -> Framing {
        guard let last = codings.last else { throw .badRequest("empty Transfer-Encoding") }
        let chunkedCount = codings.reduce(0) { $0 + (ASCII.equalsIgnoringCase($1, "chunked") ? 1 : 0) }
        if codings.count == 1 && chunkedCount == 1 { return .chunked }
        if chunkedCount > 0 && !ASCII.equalsIgnoringCase(last, "chunked") {
            throw .badRequest("chunked is not the final transfer coding")
        }
        if chunkedCount > 1 { throw .badRequest("chunked applied more than once") }
        throw HTTPParseError(status: 501, reason: "unsupported transfer coding")
    }

    /// chunk-size [ BWS ";" chunk-ext ] (extensions are checked for control characters and ignored).
    mutating func parseChunkSizeLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        var i = 0, size = 0
        while i < line.count, let digit = Self.hexValue(line[i]) {
            size = size > (Int.max - 15) / 16 ? Int.max : size * 16 + digit
            i += 1
        }
        guard i > 0 else { throw .badRequest("invalid chunk size") }
        var j = i
        while j < line.count, ASCII.isWhitespace(line[j]) { j += 1 }
        if j < line.count {
            guard line[j] == 0x3B else { throw .badRequest("invalid chunk size") }  // ";"
            guard ASCII.allFieldValueChars(line[j...]) else { throw .badRequest("invalid chunk extension") }
        } else if j > i {
            throw .badRequest("invalid chunk size")
        }
        guard size <= limits.maxBodyBytes - pending.body.count else {
            throw HTTPParseError(status: 413, reason: "body too large")
        }
        state = size == 0 ? .trailerLine : .chunkData(remaining: size)
    }

    static func hexValue(_ b: UInt8) -> Int? {
        switch b {
        case 0x30...0x39: return Int(b - 0x30)
        case 0x41...0x46: return Int(b - 0x41 + 10)
        case 0x61...0x66: return Int(b - 0x61 + 10)
        default: return nil
        }
    }
}
