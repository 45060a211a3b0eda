/// The one failure type of the storage seam: what any engine's error means to the store. Each driver maps its own
/// errors onto it (``SQLDatabase/failure(of:)``: SQLite's result codes, PostgreSQL's SQLSTATEs), so the store maps
/// them to the domain's once, for every engine. Its message names tables, columns and statements, never values.
public struct StorageError: Error, Sendable, CustomStringConvertible, Equatable {
    /// What went wrong, in the store's terms.
    public enum Kind: Sendable, Equatable {
        /// A unique constraint or primary key was violated (a duplicate).
        case unique
        /// A foreign key was violated (a reference to something missing).
        case foreignKey
        /// A `CHECK` or `NOT NULL` constraint was violated.
        case check
        /// The database is locked by other work for longer than the engine waits (retry shortly).
        case busy
        /// The database cannot be reached or has gone away (retry shortly).
        case unavailable
        /// A value the engine cannot store as it is (a text holding U+0000 on PostgreSQL).
        case invalidValue
        /// A row read does not have the columns or types its reader expects (``Row``'s strict accessors).
        case malformedRow
        /// Anything else: a bug or a broken database, answered as a 500 without its text.
        case other
    }

    /// The kind.
    public let kind: Kind
    /// What the engine said, for the log.
    public let message: String

    /// A failure of `kind` described by `message` (no values in it).
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "storage error (\(kind)): \(message)" }
}
