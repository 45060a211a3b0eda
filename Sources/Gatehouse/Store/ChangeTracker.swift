import Storage

/// A write transaction's connection as the store lends it: every statement goes to the engine's connection, and the
/// followed tables its table functions declare they write (``SQLConnection/wrote(_:)``, cascades included) are noted,
/// so that once the transaction ends the store moves their revisions on and the caches that follow them forget what
/// they hold. No service invalidates a cache by hand, and nothing is read from the SQL text (in debug builds the text
/// checks the declarations: a statement that writes a followed table its function did not declare traps).
final class ChangeTracker: SQLConnection {
    private let connection: any SQLConnection
    /// The followed tables declared written so far.
    private(set) var written: CachedTables = []
    /// The followed tables whose rows are taken for the transaction by a no-op write (a lock), changing nothing.
    private var locked: CachedTables = []
    /// The environments some of whose attested keys the transaction changed, row by row (a refreshed receipt).
    private(set) var attestedKeyEnvironments: Set<String> = []

    init(_ connection: any SQLConnection) {
        self.connection = connection
    }

    /// Notes that the transaction writes `tables`.
    func declare(_ tables: CachedTables) {
        written.formUnion(tables)
    }

    /// Notes that the transaction changes attested keys of `environmentID` (not the table as a whole).
    func declareAttestedKeys(of environmentID: String) {
        attestedKeyEnvironments.insert(environmentID)
    }

    /// Notes that the transaction takes rows of `tables` to lock them, changing nothing.
    func declareLock(_ tables: CachedTables) {
        locked.formUnion(tables)
    }

    /// In debug builds, that `sql` writes no followed table that was not declared (or locked).
    private func check(_ sql: String) {
        assert(written.union(locked).isSuperset(of: CachedTables.written(by: sql)),
               "a statement writes a followed table its table function did not declare (db.wrote): \(sql.prefix(80))")
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws -> Int {
        check(sql)
        return try connection.execute(sql, arguments)
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [Row] {
        check(sql)  // DELETE … RETURNING, UPDATE … RETURNING
        return try connection.query(sql, arguments)
    }

    func queryOne(_ sql: String, _ arguments: [SQLValue]) throws -> Row? {
        check(sql)
        return try connection.queryOne(sql, arguments)
    }

    func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (Row) throws -> Void) throws {
        check(sql)
        try connection.forEachRow(sql, arguments, body)
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.savepoint(body)
    }
}

extension SQLConnection {
    /// Declares that this transaction writes `tables` (a cascade included): what the caches following them forget
    /// once it ends, on this server and, through the revisions, on the others. Table functions call it before they
    /// write; outside the store's write transactions it does nothing.
    func wrote(_ tables: CachedTables) {
        (self as? ChangeTracker)?.declare(tables)
    }

    /// Declares that this transaction changes attested keys of `environmentID` only: the caches of that environment's
    /// keys forget them, on this server and, through its own revision, on the others; other environments' stay.
    func wroteAttestedKeys(of environmentID: String) {
        (self as? ChangeTracker)?.declareAttestedKeys(of: environmentID)
    }

    /// Declares that this transaction takes rows of `tables` to lock them without changing them: no cache forgets.
    func locks(_ tables: CachedTables) {
        (self as? ChangeTracker)?.declareLock(tables)
    }
}
