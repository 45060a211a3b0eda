import Foundation

/// Where the store lives, as `--database` names it: a SQLite file path, or a PostgreSQL URL (`postgres://` or
/// `postgresql://`, handed to libpq whole). A PostgreSQL URL is never shown: ``redacted`` names its host, port,
/// database and user as libpq reads them (`Store/Engines/DatabaseLocation+PostgreSQL.swift`), and ``scrubbing(_:)``
/// hides the URL and the password libpq parsed from a driver's message.
public struct DatabaseLocation: Sendable, Equatable {
    /// The path or URL as given.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    /// Whether this names a PostgreSQL database rather than a SQLite file.
    public var isPostgres: Bool { value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") }

    /// Why this URL would be read otherwise than its writer meant, without quoting it: libpq ends the user info at
    /// the first `/` as well as at `@`, so a password holding an unencoded `/` turns into a host, a port and a
    /// database name (shown in messages, sent to the wrong place). Nil when fine, or not a URL.
    public var ambiguity: String? {
        guard isPostgres, let schemeEnd = value.range(of: "://") else { return nil }
        let rest = value[schemeEnd.upperBound...]
        guard let slash = rest.firstIndex(of: "/"), let at = rest[slash...].firstIndex(of: "@"),
              !rest[slash..<at].contains("?") else { return nil }
        return "the PostgreSQL URL has an '@' after a '/': percent-encode '/' in its user name and password (%2F), or pass the password as a password= parameter or in ~/.pgpass"
    }
}
