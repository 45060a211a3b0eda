/// The request line, the header and trailer field lines, and the framing decision at the end of the head.
extension RequestParser {
    /// request-line = method SP request-target SP HTTP-version (RFC 9112 §3), single spaces only.
    mutating func parseRequestLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        guard let sp1 = line.firstIndex(of: ASCII.space),
              let sp2 = line[(sp1 + 1)...].firstIndex(of: ASCII.space)
        else { throw .badRequest("malformed request line") }
        let method = line[..<sp1], target = line[(sp1 + 1)..<sp2], version = line[(sp2 + 1)...]
        guard !method.isEmpty, ASCII.allTokenChars(method) else { throw .badRequest("invalid method") }
        pending.version = try Self.parseVersion(version)
        pending.headers.reserveCapacity(min(limits.maxHeaderCount, 12))
        pending.method = Self.methodString(method)
        try parseTarget(target)
    }

    /// HTTP-version = "HTTP/" DIGIT "." DIGIT; only 1.0 and 1.1 are served.
    static func parseVersion(_ v: UnsafeBufferPointer<UInt8>.SubSequence) throws(HTTPParseError) -> HTTPVersion {
        let s = v.startIndex
        guard v.count == 8, v[s] == 0x48, v[s + 1] == 0x54, v[s + 2] == 0x54, v[s + 3] == 0x50, v[s + 4] == 0x2F,
              v[s + 6] == 0x2E, (0x30...0x39).contains(v[s + 5]), (0x30...0x39).contains(v[s + 7])
        else { throw .badRequest("malformed HTTP version") }
        let version = HTTPVersion(major: Int(v[s + 5] - 0x30), minor: Int(v[s + 7] - 0x30))
        guard version == .http11 || version == .http10 else {
            throw HTTPParseError(status: 505, reason: "HTTP version not supported")
        }
        return version
    }

    /// Accepts origin-form, asterisk-form (OPTIONS only) and absolute-form (RFC 9112 §3.2). An absolute-form target
    /// is stored as origin-form and its authority replaces Host at the end of the head (§3.2.2).
    mutating func parseTarget(_ t: UnsafeBufferPointer<UInt8>.SubSequence) throws(HTTPParseError) {
        guard !t.isEmpty, t.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x23 }) else {
            throw .badRequest("invalid request target")
        }
        let first = t[t.startIndex]
        if first == 0x2F {  // "/"
            pending.target = String(decoding: t, as: UTF8.self)
            return
        }
        if t.count == 1 && first == 0x2A {  // "*"
            guard pending.method == "OPTIONS" else { throw .badRequest("asterisk-form target outside OPTIONS") }
            pending.target = "*"
            return
        }
        // absolute-form: scheme "://" authority [path-abempty] ["?" query]
        var i = t.startIndex
        guard Self.isAlpha(first) else { throw .badRequest("unsupported request-target form") }
        while i < t.endIndex, Self.isAlpha(t[i]) || (0x30...0x39).contains(t[i]) || t[i] == 0x2B || t[i] == 0x2D
            || t[i] == 0x2E { i += 1 }
        guard t.endIndex - i > 3, t[i] == ASCII.colon, t[i + 1] == 0x2F, t[i + 2] == 0x2F else {
            throw .badRequest("unsupported request-target form")
        }
        let authorityStart = i + 3
        var j = authorityStart
        while j < t.endIndex, t[j] != 0x2F, t[j] != 0x3F { j += 1 }
        let authority = t[authorityStart..<j]
        guard !authority.isEmpty, !authority.contains(0x40) else { throw .badRequest("invalid authority in target") }
        pending.authority = String(decoding: authority, as: UTF8.self)
        let rest = String(decoding: t[j...], as: UTF8.self)
        pending.target = rest.hasPrefix("/") ? rest : "/" + rest
    }

    /// Host = uri-host [ ":" port ] (RFC 9110 §7.2), checked by its alphabet: unreserved, pct-encoded, sub-delims,
    /// ":" and the brackets of an IP literal. Anything else (space, "/", "@", …) is 400 (RFC 9112 §3.2).
    static func isValidHost(_ value: UnsafeBufferPointer<UInt8>.SubSequence) -> Bool {
        for b in value {
            switch b {
            case 0x61...0x7A, 0x41...0x5A, 0x30...0x39: continue  // ALPHA DIGIT
            case 0x2D, 0x2E, 0x5F, 0x7E, 0x25: continue  // - . _ ~ %
            case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: continue  // ! $ & ' ( ) * + , ; =
            case 0x3A, 0x5B, 0x5D: continue  // : [ ]
            default: return false
            }
        }
        return true
    }

    static func isAlpha(_ b: UInt8) -> Bool { (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) }

    /// Splits `name: OWS value OWS` (RFC 9112 §5), rejecting obs-fold, whitespace before the colon, non-token
    /// names and control characters in the value. Returns the name and the trimmed value.
    static func splitField(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError)
        -> (name: UnsafeBufferPointer<UInt8>.SubSequence, value: UnsafeBufferPointer<UInt8>.SubSequence) {
        if ASCII.isWhitespace(line[0]) { throw .badRequest("obsolete line folding") }
        guard let colon = line.firstIndex(of: ASCII.colon) else { throw .badRequest("header field without colon") }
        let name = line[..<colon]
        guard !name.isEmpty else { throw .badRequest("empty header name") }
        if ASCII.isWhitespace(line[colon - 1]) { throw .badRequest("whitespace before colon") }
        guard ASCII.allTokenChars(name) else { throw .badRequest("invalid header name") }
        var start = colon + 1, end = line.count
        while start < end, ASCII.isWhitespace(line[start]) { start += 1 }
        while end > start, ASCII.isWhitespace(line[end - 1]) { end -= 1 }
        let value = line[start..<end]
        guard ASCII.allFieldValueChars(value) else { throw .badRequest("control character in header value") }
        return (name, value)
    }

    /// A header field line: stored in order, and noted when it takes part in framing.
    mutating func parseHeaderLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        let (name, value) = try Self.splitField(line)
        guard pending.headers.count < limits.maxHeaderCount else {
            throw HTTPParseError(status: 431, reason: "too many header fields")
        }
        let valueString = String(decoding: value, as: UTF8.self)
        switch name.count {
        case 4 where ASCII.equalsIgnoringCase(name, "host"):
            pending.hostCount += 1
            guard Self.isValidHost(value) else { throw .badRequest("invalid Host") }
        case 6 where ASCII.equalsIgnoringCase(name, "expect"):
            pending.expectations.append(valueString)
        case 14 where ASCII.equalsIgnoringCase(name, "content-length"):
            pending.contentLengthCount += 1
            pending.contentLength = Array(value)
        case 17 where ASCII.equalsIgnoringCase(name, "transfer-encoding"):
            pending.transferEncodings.append(valueString)
        default:
            break
        }
        pending.headers.add(Self.nameString(name), valueString)
    }

    /// A trailer field line of a chunked body: checked like a header field, counted, then dropped.
    mutating func parseTrailerLine(_ line: UnsafeBufferPointer<UInt8>) throws(HTTPParseError) {
        _ = try Self.splitField(line)
        pending.trailerCount += 1
        guard pending.trailerCount <= limits.maxHeaderCount else {
            throw HTTPParseError(status: 431, reason: "too many trailer fields")
        }
    }

    /// The empty line after the headers: checks Host, decides how the body is framed (RFC 9112 §6.3), answers
    /// `Expect`, then completes the request or waits for its body.
    mutating func endOfHead(into events: inout [ParseEvent]) throws(HTTPParseError) {
        if pending.hostCount > 1 { throw .badRequest("more than one Host") }
        if pending.hostCount == 0 && pending.version == .http11 { throw .badRequest("missing Host") }
        if let authority = pending.authority { pending.headers.set("Host", authority) }

        var framing = Framing.none
        if !pending.transferEncodings.isEmpty {
            if pending.version == .http10 { throw .badRequest("Transfer-Encoding in HTTP/1.0") }
            if pending.contentLengthCount > 0 { throw .badRequest("both Content-Length and Transfer-Encoding") }
            framing = try Self.framing(transferCodings: ASCII.listElements(pending.transferEncodings))
        } else if pending.contentLengthCount > 1 {
            throw .badRequest("repeated Content-Length")
        } else if pending.contentLengthCount == 1 {
            let length = try Self.parseContentLength(pending.contentLength)
            if length > limits.maxBodyBytes { throw HTTPParseError(status: 413, reason: "body too large") }
            if length > 0 { framing = .length(length) }
        }

        if pending.version == .http11 && !pending.expectations.isEmpty {
            let expectations = ASCII.listElements(pending.expectations)
            guard expectations.allSatisfy({ ASCII.equalsIgnoringCase($0, "100-continue") }) else {
                throw HTTPParseError(status: 417, reason: "unsupported expectation")
            }
            if !expectations.isEmpty && framing != .none { events.append(.expectContinue) }
        }

        switch framing {
        case .none: complete(into: &events)
        case .length(let n): state = .body(remaining: n)
        case .chunked: state = .chunkSizeLine
        }
    }

    /// Content-Length = 1*DIGIT (RFC 9110 §8.6); no sign, no list, no whitespace inside. Saturates when huge.
    static func parseContentLength(_ bytes: [UInt8]) throws(HTTPParseError) -> Int {
        guard !bytes.isEmpty else { throw .badRequest("malformed Content-Length") }
        var n = 0
        for b in bytes {
            guard (0x30...0x39).contains(b) else { throw .badRequest("malformed Content-Length") }
            n = n > (Int.max - 9) / 10 ? Int.max : n * 10 + Int(b - 0x30)
        }
        return n
    }
}
