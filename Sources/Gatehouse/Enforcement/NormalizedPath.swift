/// The path of a call as routes match it (DEVICE-API.md "The edge check"): percent-encoded unreserved characters
/// decoded, other percent-encodings kept (hex digits in capitals), dot segments removed, repeated `/` collapsed, the
/// query dropped. So `/api/pay%6Dents//1/./` is `/api/payments/1/`.
///
/// A path that could mean two things to two parsers is refused rather than guessed at: an encoded `/` or NUL
/// (`%2F`, `%00`), invalid percent-encoding, bytes outside visible ASCII, or `..` above the root.
public struct NormalizedPath: Sendable, Equatable, CustomStringConvertible {
    /// The segments after the leading `/`: `/` is `[""]`, `/a/b/` is `["a", "b", ""]`.
    public let segments: [String]

    /// Why a path is refused.
    public enum Refusal: Error, Sendable, Equatable {
        /// Not a path starting with `/`, or bytes outside visible ASCII.
        case notAPath
        /// `%` not followed by two hex digits.
        case invalidEncoding
        /// `%2F` or `%00`: a separator or terminator that some servers behind the proxy would decode.
        case encodedSeparator
        /// More `..` segments than segments before them.
        case aboveRoot
    }

    /// Normalizes the path of `pathAndQuery` (an origin-form request target).
    /// - Throws: ``Refusal``.
    public init(_ pathAndQuery: String) throws(Refusal) {
        var bytes = pathAndQuery.utf8[...]
        if let end = bytes.firstIndex(where: { $0 == UInt8(ascii: "?") }) { bytes = bytes[..<end] }
        guard bytes.first == UInt8(ascii: "/") else { throw .notAPath }
        var output: [String] = []
        var segment: [UInt8] = []
        var iterator = bytes.dropFirst().makeIterator()
        func close() throws(Refusal) {
            switch segment {
            case [UInt8(ascii: ".")]:
                break
            case [UInt8(ascii: "."), UInt8(ascii: ".")]:
                guard !output.isEmpty else { throw .aboveRoot }
                output.removeLast()
            case []:
                break  // repeated "/" collapse
            default:
                output.append(String(decoding: segment, as: UTF8.self))
            }
            segment.removeAll(keepingCapacity: true)
        }
        var endsWithSlash = true  // "/" alone has the one empty segment
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "/"):
                try close()
                endsWithSlash = true
                continue
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(Self.hex), let low = iterator.next().flatMap(Self.hex) else { throw .invalidEncoding }
                let decoded = high << 4 | low
                if decoded == UInt8(ascii: "/") || decoded == 0 { throw .encodedSeparator }
                if Self.isUnreserved(decoded) {
                    segment.append(decoded)
                } else {
                    segment.append(UInt8(ascii: "%"))
                    segment.append(Self.hexDigits[Int(high)])
                    segment.append(Self.hexDigits[Int(low)])
                }
            case 0x21...0x7E:
                segment.append(byte)
            default:
                throw .notAPath
            }
            endsWithSlash = false
        }
        // A last "." or ".." is a directory: "/a/b/.." is "/a/".
        let lastIsDot = segment == [UInt8(ascii: ".")] || segment == [UInt8(ascii: "."), UInt8(ascii: ".")]
        try close()
        if endsWithSlash || lastIsDot { output.append("") }
        segments = output
    }

    /// The path as text: `/` and the segments joined by `/`.
    public var description: String { "/" + segments.joined(separator: "/") }

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
