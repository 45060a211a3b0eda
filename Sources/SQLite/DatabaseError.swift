import CSQLite

/// An error reported by SQLite, or by this wrapper when it is misused.
///
/// It carries the extended result code (https://sqlite.org/rescode.html), SQLite's message and the SQL text,
/// but never the bound arguments, so it is safe to log.
public struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is, for callers that turn constraint violations into conflicts.
    public enum Kind: Sendable, Equatable {
        /// A `UNIQUE` constraint or unique index was violated.
        case uniqueConstraint
        /// A foreign key was violated.
        case foreignKeyConstraint
        /// A `CHECK` constraint was violated.
        case checkConstraint
        /// A `NOT NULL` constraint was violated.
        case notNullConstraint
        /// A `PRIMARY KEY` was violated (a duplicate key).
        case primaryKeyConstraint
        /// The database stayed locked by another connection for longer than the busy timeout.
        case busy
        /// Anything else.
        case other
    }

    /// The extended result code, e.g. 2067 for `SQLITE_CONSTRAINT_UNIQUE`.
    public let code: Int32
    /// SQLite's message (it names tables and columns, not values).
    public let message: String
    /// The SQL statement that failed, if any; never its arguments.
    public let sql: String?

    /// An error with an extended result code, a message and the failing SQL.
    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The result code without its extended bits, e.g. 19 (`SQLITE_CONSTRAINT`) for 2067.
    public var primaryCode: Int32 {
        code & 0xFF
    }

    /// The kind, from the extended result code. See https://sqlite.org/rescode.html#constraint
    public var kind: Kind {
        switch code {
        case DatabaseError.constraintUnique: .uniqueConstraint
        case DatabaseError.constraintPrimaryKey: .primaryKeyConstraint
        case DatabaseError.constraintForeignKey: .foreignKeyConstraint
        case DatabaseError.constraintCheck: .checkConstraint
        case DatabaseError.constraintNotNull: .notNullConstraint
        default: primaryCode == SQLITE_BUSY ? .busy : .other
        }
    }

    /// `SQLite error <code> (<name>): <message>`, then ` in: <sql>` when there is SQL. Never the arguments.
    public var description: String {
        let head = "SQLite error \(code) (\(DatabaseError.name(of: code))): \(message)"
        guard let sql else { return head }
        return head + " in: " + sql
    }

    // Extended result codes: sqlite3.h defines them as `(SQLITE_CONSTRAINT | (n<<8))`, which Swift does not import.
    /// `SQLITE_CONSTRAINT_CHECK`.
    static let constraintCheck = SQLITE_CONSTRAINT | (1 << 8)
    /// `SQLITE_CONSTRAINT_FOREIGNKEY`.
    static let constraintForeignKey = SQLITE_CONSTRAINT | (3 << 8)
    /// `SQLITE_CONSTRAINT_NOTNULL`.
    static let constraintNotNull = SQLITE_CONSTRAINT | (5 << 8)
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`.
    static let constraintPrimaryKey = SQLITE_CONSTRAINT | (6 << 8)
    /// `SQLITE_CONSTRAINT_UNIQUE`.
    static let constraintUnique = SQLITE_CONSTRAINT | (8 << 8)

    /// An error for misuse of this wrapper (wrong argument count, re-entrant write…).
    static func misuse(_ message: String, sql: String? = nil) -> DatabaseError {
        DatabaseError(code: SQLITE_MISUSE, message: message, sql: sql)
    }
}
