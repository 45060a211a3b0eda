import Foundation

/// Where the store lives, as `--database` names it: a SQLite file path, or a PostgreSQL URL (`postgres://` or
/// `postgresql://`, handed to libpq whole). ``redacted`` is the one form that may be logged or shown: the URL's
/// password (in its user info or as a `password` parameter) replaced by `***`.
public struct DatabaseLocation: Sendable, Equatable {
    /// The path or URL as given.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    /// Whether this names a PostgreSQL database rather than a SQLite file.
    public var isPostgres: Bool { value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") }

    /// The location with any password hidden, for logs and messages.
    public var redacted: String {
        var text = value
        for range in passwordRanges.reversed() { text.replaceSubrange(range, with: "***") }
        return text
    }

    /// `message` (a driver's, which may quote the URL it was given, even one it could not parse) with the URL and
    /// its passwords hidden as in ``redacted``.
    public func scrubbing(_ message: String) -> String {
        var text = message.replacingOccurrences(of: value, with: redacted)
        for range in passwordRanges where !range.isEmpty {
            let password = String(value[range])
            text = text.replacingOccurrences(of: password, with: "***")
            if let decoded = password.removingPercentEncoding, !decoded.isEmpty {
                text = text.replacingOccurrences(of: decoded, with: "***")
            }
        }
        return text
    }

    /// Where the passwords stand in a PostgreSQL URL, in order: the user info's, then each `password=` parameter's.
    private var passwordRanges: [Range<String.Index>] {
        guard isPostgres, let schemeEnd = value.range(of: "://") else { return [] }
        var ranges: [Range<String.Index>] = []
        let authorityEnd = value[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? value.endIndex
        if let at = value[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
           let colon = value[schemeEnd.upperBound..<at].firstIndex(of: ":") {
            ranges.append(value.index(after: colon)..<at)
        }
        guard let query = value.firstIndex(of: "?") else { return ranges }
        var start = value.index(after: query)
        while start <= value.endIndex {
            let end = value[start...].firstIndex(of: "&") ?? value.endIndex
            let parameter = value[start..<end]
            if parameter.lowercased().hasPrefix("password=") {
                ranges.append(value.index(start, offsetBy: "password=".count)..<end)
            }
            guard end < value.endIndex else { break }
            start = value.index(after: end)
        }
        return ranges
    }
}
