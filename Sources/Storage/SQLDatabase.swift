/// The storage seam (docs/architecture.md "Storage: one seam, two engines"), modelled on GRDB's `DatabaseWriter`: a database
/// shared by every thread, whose connections are reachable only inside ``read(_:)`` and ``write(_:)``. The store
/// runs every statement through it; SQLite is one engine behind it, PostgreSQL the other.
public protocol SQLDatabase: Sendable {
    /// Runs `body` on a connection inside one read transaction (one snapshot for every statement of it).
    /// - Throws: the engine's errors (``failure(of:)`` maps them), or what `body` throws.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// Runs `body` in a write transaction: committed when it returns (durably, as the engine is configured), rolled
    /// back when it throws. Writes are serialized or conflict-checked by the engine.
    /// - Throws: the engine's errors (``failure(of:)`` maps them), or what `body` throws.
    func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T

    /// What an error thrown by this engine means to the store; nil for an error that is not the engine's (a
    /// closure's own).
    func failure(of error: any Error) -> StorageError?

    /// Writes waiting or running, for a metrics gauge.
    var pendingWrites: Int { get }

    /// Whether other servers write this database too (PostgreSQL), so that what one server caches must follow the
    /// changes the others make; false for a database one process holds (SQLite).
    var isShared: Bool { get }

    /// Whether each statement (a savepoint too) is a round trip to a database server (PostgreSQL), so that a batch
    /// of changes is better run without savepoints as long as none throws, and a transaction takes long enough that
    /// waiting for it is better done asleep; false in process (SQLite).
    var statementsAreRoundTrips: Bool { get }

    /// How many write transactions are best run at once: 1 for an engine with one writer (SQLite), more where
    /// concurrent transactions overlap their round trips and syncs (PostgreSQL).
    var concurrentWriteTransactions: Int { get }

    /// Waits up to `milliseconds` for another server's wake-up on `channel` (PostgreSQL: a `NOTIFY`, heard on a
    /// connection of its own); returns whether one came. An unshared database returns false at once.
    /// - Throws: the engine's errors when the listening connection is lost (wake-ups sent meanwhile are lost too).
    func awaitChange(channel: String, milliseconds: Int) throws -> Bool

    /// Applies the pending migrations of `directory` (`NNNN_name.sql`, in order, each once, checksums recorded; an
    /// engine may keep its own files in a folder of the directory); returns the files applied. Throws when one fails
    /// or an applied one changed.
    func migrate(directory: String) throws -> [String]

    /// The migrations of `directory` applied and pending.
    func migrationStatus(directory: String) throws -> (applied: [String], pending: [String])

    /// Writes a consistent copy of the database to `path` while it is in use.
    /// - Throws: ``StorageError`` when the engine has no such backup (PostgreSQL: use `pg_dump`).
    func backup(to path: String) throws

    /// Whether the engine has background work of its own (SQLite: copying the write-ahead log into the file), run
    /// as a job of the layer above by ``maintain()``.
    var needsMaintenance: Bool { get }

    /// One run of the engine's background work; answers the seconds to wait before the next run.
    /// - Throws: what the work met (a full disk); the caller waits a second and runs it again.
    func maintain() throws -> Double
}

/// A connection of an ``SQLDatabase``, lent to one thread inside `read` or `write`: never `Sendable`, never kept
/// past the closure. Statements take `?` placeholders, bound in order; the SQL text is fixed (values are always
/// bound, never spliced).
public protocol SQLConnection: AnyObject {
    /// Runs one statement with `arguments`; returns the rows it changed (0 for a statement that changes none).
    @discardableResult
    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int

    /// Runs a query; returns its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Row]

    /// Runs a query; returns its first row, or nil.
    func queryOne(_ sql: String, _ arguments: [SQLValue]) throws -> Row?

    /// Runs a query and calls `body` with each row, without the caller collecting them (`body` may run other
    /// statements on this connection). SQLite steps through the rows as they come; PostgreSQL has read them all first.
    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (Row) throws -> Void) throws

    /// Runs `body` inside a savepoint: its changes undone alone when it throws, the enclosing transaction kept.
    func savepoint<T>(_ body: () throws -> T) throws -> T
}

extension SQLConnection {
    /// ``execute(_:_:)`` without arguments.
    @discardableResult
    public func execute(_ sql: String) throws -> Int { try execute(sql, []) }

    /// ``query(_:_:)`` without arguments.
    public func query(_ sql: String) throws -> [Row] { try query(sql, []) }

    /// ``forEachRow(_:_:_:)`` without arguments.
    public func forEachRow(_ sql: String, _ body: (Row) throws -> Void) throws { try forEachRow(sql, [], body) }

    /// ``queryOne(_:_:)`` without arguments.
    public func queryOne(_ sql: String) throws -> Row? { try queryOne(sql, []) }
}
