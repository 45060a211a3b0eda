import HTTP

/// Parses route patterns and request paths into segments.
enum RoutePattern {
    enum Segment: Equatable {
        case literal(String)
        case parameter(String)
        case catchAll(String)
    }

    /// The segments of a pattern; traps on a malformed pattern (a programmer error at start-up).
    static func parse(_ pattern: String) -> [Segment] {
        guard let parts = pathSegments(of: pattern) else {
            preconditionFailure("a route pattern starts with /: \(pattern)")
        }
        return parts.map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                let inner = part.dropFirst().dropLast()
                if inner.hasSuffix("...") {
                    let name = String(inner.dropLast(3))
                    precondition(isName(name), "bad parameter name in \(pattern)")
                    return .catchAll(name)
                }
                precondition(isName(inner), "bad parameter name in \(pattern)")
                return .parameter(String(inner))
            }
            precondition(!part.contains("{") && !part.contains("}"), "bad segment in \(pattern)")
            return .literal(String(part))
        }
    }

    /// The raw segments of a request target's path ("/" → [], "/a/b?q" → ["a", "b"]); absolute-form targets
    /// ("http://host/a") are reduced to their path. Nil when the path does not start with "/".
    /// Scans UTF-8 bytes once: this runs on every request.
    static func pathSegments(of target: String) -> [Substring]? {
        let slash = UInt8(ascii: "/")
        let utf8 = target.utf8
        var start = utf8.startIndex
        var end = utf8.endIndex
        var index = start
        while index != end {
            let byte = utf8[index]
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                end = index
                break
            }
            index = utf8.index(after: index)
        }
        guard start != end else { return nil }
        if utf8[start] != slash {
            // absolute-form: scheme "://" authority path
            guard let colon = utf8[start..<end].firstIndex(of: UInt8(ascii: ":")),
                  utf8[colon..<end].starts(with: "://".utf8) else { return nil }
            let authority = utf8.index(colon, offsetBy: 3)
            guard let path = utf8[authority..<end].firstIndex(of: slash) else { return [] }
            start = path
        }
        var segments: [Substring] = []
        var segmentStart = utf8.index(after: start)
        if segmentStart == end { return segments }
        segments.reserveCapacity(8)
        index = segmentStart
        while index != end {
            if utf8[index] == slash {
                segments.append(target[segmentStart..<index])
                segmentStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        segments.append(target[segmentStart..<end])
        return segments
    }

    /// Percent-decodes one path segment ('+' stays '+'); nil when malformed or not UTF-8.
    static func decode(_ segment: Substring) -> String? {
        guard segment.utf8.contains(UInt8(ascii: "%")) else { return String(segment) }
        return URLEncoding.percentDecode(String(segment), plusAsSpace: false)
    }

    private static func isName<S: StringProtocol>(_ name: S) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_")
        }
    }
}
