import Storage

/// An error from PostgreSQL or libpq: the SQLSTATE when the server sent one (nil when the connection failed
/// before or while talking), and the message. The message never holds the connection URL or its password.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (https://www.postgresql.org/docs/15/errcodes-appendix.html), nil for a
    /// connection that could not be made or was lost.
    public let sqlState: String?
    public let message: String

    public init(sqlState: String?, _ message: String) {
        self.sqlState = sqlState
        self.message = message
    }

    public var description: String {
        sqlState.map { "PostgreSQL \($0): \(message)" } ?? "PostgreSQL: \(message)"
    }

    /// Whether running the transaction again may succeed: a serialization failure (40001) or a deadlock (40P01).
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// What this error means to the store.
    public var storageError: StorageError {
        StorageError(kind, description)
    }

    /// The store's kind of failure for the SQLSTATE: constraint classes by their codes, lost or refused connections
    /// (class 08, 57P01–57P03, 53300, a statement cancelled by its timeout 57014) as unavailable, lock conflicts as
    /// busy.
    var kind: StorageError.Kind {
        guard let sqlState else { return .unavailable }
        switch sqlState {
        case "23505": return .unique
        case "23503": return .foreignKey
        case "23514", "23502": return .check
        case "40001", "40P01", "55P03": return .busy
        case "57014", "57P01", "57P02", "57P03", "53300": return .unavailable
        default: return sqlState.hasPrefix("08") ? .unavailable : .other
        }
    }
}
