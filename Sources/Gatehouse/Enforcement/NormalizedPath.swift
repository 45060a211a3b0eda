/// The path of a call as routes match it (docs/device-api.md "The edge check", "Matching as the API routes"):
/// percent-encoded unreserved characters decoded, other percent-encodings kept (hex digits in capitals), dot segments
/// removed, repeated `/` collapsed, the query dropped. So `/api/pay%6Dents//1/./` is `/api/payments/1/`.
///
/// A path that could mean two things to two parsers is refused rather than guessed at, the first offending byte from
/// the left naming why: an encoded `/` or NUL (`%2F`, `%00`), invalid percent-encoding, `;` (Tomcat, Jetty and Spring
/// strip `;` parameters before routing), `#` (Node and most frameworks cut the fragment), a backslash (some servers
/// read it as `/`), a control character, raw or encoded, other bytes outside visible ASCII, or `..` above the root.
public struct NormalizedPath: Sendable, Equatable, CustomStringConvertible {
    /// The segments after the leading `/`: `/` is `[""]`, `/a/b/` is `["a", "b", ""]`.
    public let segments: [String]
    /// The segments as routes compare them: ASCII letters in lower case, and a trailing `/` dropped (`/API/Pay/` is
    /// `["api", "pay"]`, `/` is `[]`), because frameworks route that way (Express ignores case and a trailing `/`).
    let folded: [String]
    /// Only when the path held a dot segment (`.` or `..`, raw or encoded): the segments as written, dot segments
    /// kept, folded the same way. Express, Starlette and Flask do not remove dot segments (Express routes
    /// `/api/orders/..` to `/api/orders/:id`), so routes read such a path both ways
    /// (``EnforcementSettings/route(method:path:)``).
    let written: [String]?

    /// Why a path is refused.
    public enum Refusal: String, Error, Sendable, Equatable, CaseIterable {
        /// Not a path starting with `/`, or a space or a byte outside ASCII.
        case notAPath
        /// `%` not followed by two hex digits.
        case invalidEncoding
        /// `%2F` or `%00`: a separator or terminator that some servers behind the proxy would decode.
        case encodedSeparator
        /// More `..` segments than segments before them.
        case aboveRoot
        /// `;` or `%3B`: a segment parameter that Java servers strip before routing.
        case semicolon
        /// `#` or `%23`: a fragment, which most servers cut before routing.
        case fragment
        /// `\` or `%5C`: read as `/` by some servers.
        case backslash
        /// A control character (below 0x20, or DEL), raw or encoded.
        case control

        /// The reason an outcome `invalid` gives: `path:semicolon`.
        public var reason: String { "path:" + rawValue }
    }

    /// Normalizes the path of `pathAndQuery` (an origin-form request target).
    /// - Throws: ``Refusal``, for the first offending byte from the left.
    public init(_ pathAndQuery: String) throws(Refusal) {
        var bytes = pathAndQuery.utf8[...]
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") }) { bytes = bytes[..<end] }
        guard bytes.first == UInt8(ascii: "/") else { throw .notAPath }
        var output: [String] = []
        var literal: [String] = []
        var sawDot = false
        var segment: [UInt8] = []
        var iterator = bytes.dropFirst().makeIterator()
        func close() throws(Refusal) {
            let isDot = segment == [UInt8(ascii: ".")] || segment == [UInt8(ascii: "."), UInt8(ascii: ".")]
            // The reading as written is needed only once a dot segment shows: until then it is the normalized one.
            if isDot && !sawDot {
                sawDot = true
                literal = output
            }
            if sawDot && !segment.isEmpty { literal.append(String(decoding: segment, as: UTF8.self)) }
            switch segment {
            case [UInt8(ascii: ".")]:
                break
            case [UInt8(ascii: "."), UInt8(ascii: ".")]:
                guard !output.isEmpty else { throw .aboveRoot }
                output.removeLast()
            case []:
                break  // repeated "/" collapse
            default:
                output.append(sawDot ? literal[literal.count - 1] : String(decoding: segment, as: UTF8.self))
            }
            segment.removeAll(keepingCapacity: true)
        }
        var endsWithSlash = true  // "/" alone has the one empty segment
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "/") {
                try close()
                endsWithSlash = true
                continue
            }
            endsWithSlash = false
            guard byte == UInt8(ascii: "%") else {
                if let refusal = Self.refusal(of: byte) { throw refusal }
                guard byte > 0x20, byte < 0x7F else { throw .notAPath }
                segment.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hex), let low = iterator.next().flatMap(Self.hex) else { throw .invalidEncoding }
            let decoded = high << 4 | low
            if decoded == UInt8(ascii: "/") || decoded == 0 { throw .encodedSeparator }
            if let refusal = Self.refusal(of: decoded) { throw refusal }
            if Self.isUnreserved(decoded) {
                segment.append(decoded)
            } else {
                segment.append(UInt8(ascii: "%"))
                segment.append(Self.hexDigits[Int(high)])
                segment.append(Self.hexDigits[Int(low)])
            }
        }
        // A last "." or ".." is a directory: "/a/b/.." is "/a/".
        let lastIsDot = segment == [UInt8(ascii: ".")] || segment == [UInt8(ascii: "."), UInt8(ascii: ".")]
        try close()
        folded = output.map(Self.lowercased)
        written = sawDot ? literal.map(Self.lowercased) : nil
        if endsWithSlash || lastIsDot { output.append("") }
        segments = output
    }

    /// The path as text: `/` and the segments joined by `/`.
    public var description: String { "/" + segments.joined(separator: "/") }

    /// The refusal a byte (raw, or decoded from `%XX`) brings wherever it stands in the path, or nil.
    static func refusal(of byte: UInt8) -> Refusal? {
        switch byte {
        case UInt8(ascii: ";"): .semicolon
        case UInt8(ascii: "#"): .fragment
        case UInt8(ascii: "\\"): .backslash
        case 0..<0x20, 0x7F: .control
        default: nil
        }
    }

    /// `text` with its ASCII letters in lower case (other bytes as they are).
    static func lowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else { return text }
        return String(decoding: text.utf8.map { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// RFC 3986 §2.3: ALPHA, DIGIT, `-`, `.`, `_`, `~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
        }
    }
}
