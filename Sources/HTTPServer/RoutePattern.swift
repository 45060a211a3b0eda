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

    /// The raw segments of an origin-form path ("/" → [], "/a/b" → ["a", "b"]); absolute-form targets
    /// ("http://host/a") are reduced to their path. Nil when the path does not start with "/".
    static func pathSegments(of path: String) -> [Substring]? {
        var path = Substring(path)
        if !path.hasPrefix("/") {
            guard let colon = path.firstIndex(of: ":"), path[colon...].hasPrefix("://") else { return nil }
            let afterAuthority = path[path.index(colon, offsetBy: 3)...]
            guard let slash = afterAuthority.firstIndex(of: "/") else { return [] }
            path = afterAuthority[slash...]
        }
        if path == "/" { return [] }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
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
