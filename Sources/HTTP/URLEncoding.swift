/// Percent-decoding (RFC 3986 §2.1) and `application/x-www-form-urlencoded` query parsing, for the router and
/// form handlers.
public enum URLEncoding {
    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`, as in query strings and forms).
    /// Returns nil when a `%` is not followed by two hex digits or the decoded bytes are not valid UTF-8.
    /// A decoded NUL or "/" is returned as is: callers that build file paths must check for them.
    public static func percentDecode<S: StringProtocol>(_ s: S, plusAsSpace: Bool) -> String? {
        let utf8 = s.utf8
        guard utf8.contains(where: { $0 == 0x25 || (plusAsSpace && $0 == 0x2B) }) else { return String(s) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        var i = utf8.startIndex
        while i != utf8.endIndex {
            let b = utf8[i]
            if b == 0x25 {
                let h = utf8.index(after: i)
                guard h != utf8.endIndex else { return nil }
                let l = utf8.index(after: h)
                guard l != utf8.endIndex, let hi = RequestParser.hexValue(utf8[h]),
                      let lo = RequestParser.hexValue(utf8[l]) else { return nil }
                out.append(UInt8(hi * 16 + lo))
                i = utf8.index(after: l)
            } else {
                out.append(plusAsSpace && b == 0x2B ? 0x20 : b)
                i = utf8.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The `name=value` pairs of a query string in order, repeats kept, `+` and `%XX` decoded. Empty pieces
    /// (`a=1&&b=2`) are skipped, a piece without `=` has an empty value, and a piece that does not decode is
    /// dropped rather than guessed at.
    public static func parseQuery<S: StringProtocol>(_ query: S) -> [(String, String)] {
        var pairs: [(String, String)] = []
        for piece in query.split(separator: "&", omittingEmptySubsequences: true) {
            let name: S.SubSequence, value: S.SubSequence
            if let eq = piece.firstIndex(of: "=") {
                name = piece[..<eq]
                value = piece[piece.index(after: eq)...]
            } else {
                name = piece
                value = piece[piece.endIndex...]
            }
            guard let n = percentDecode(name, plusAsSpace: true), let v = percentDecode(value, plusAsSpace: true)
            else { continue }
            pairs.append((n, v))
        }
        return pairs
    }
}
