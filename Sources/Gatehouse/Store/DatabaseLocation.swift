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
        guard isPostgres, let schemeEnd = value.range(of: "://") else { return value }
        var text = value
        let authorityEnd = text[schemeEnd.upperBound...].firstIndex { $0 == "/" || $0 == "?" } ?? text.endIndex
        if let at = text[schemeEnd.upperBound..<authorityEnd].lastIndex(of: "@"),
           let colon = text[schemeEnd.upperBound..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
        guard let query = text.firstIndex(of: "?") else { return text }
        let parameters = text[text.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { parameter in
            parameter.lowercased().hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(text[...query]) + parameters.joined(separator: "&")
    }
}
