import Locks
import Storage

/// Migrations on PostgreSQL: the same `NNNN_name.sql` rules and `schema_migrations` record as on SQLite, read from the
/// `postgresql/` folder of the migrations directory (the same numbers and names as SQLite's files beside it, in this
/// engine's types), the pending ones in one transaction holding a transaction-level advisory lock
/// (https://www.postgresql.org/docs/15/explicit-locking.html#ADVISORY-LOCKS) so that of several servers starting
/// together on an empty database one migrates and the others wait, then find nothing left to do. A transaction's lock
/// (not a session's) also holds behind a pooler in transaction mode, which may run each statement of a session on
/// another server connection.
extension PostgresDatabase {
    /// The advisory lock key every Gatehouse migrator takes ("GATEHOUSE" folded into 63 bits).
    static let migrationLock: Int64 = 0x4741_5445_484F_5553

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            name TEXT PRIMARY KEY NOT NULL,
            sha256 TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """

    /// The folder of a migrations directory that holds PostgreSQL's files.
    public static let migrationsFolder = "postgresql"

    /// Applies the pending migrations of `directory`'s PostgreSQL folder, waiting up to `waitSeconds` for another server that holds the
    /// migration lock (`waiting` hears once a second while it waits); returns the names applied.
    /// - Throws: ``MigrationError`` (an edited, missing or newer-than-code migration; a failed one), a
    ///   ``PostgresError``, or `StorageError(.busy)` when the lock was not had in time.
    public func migrate(directory: String, waitSeconds: Int, waiting: (Int) -> Void) throws -> [String] {
        let migrations = try Migration.load(directory: directory + "/" + Self.migrationsFolder)
        return try pool.withResource { connection in
            var waited = 0
            while true {
                // The lock is the transaction's (pg_try_advisory_xact_lock): released by COMMIT or ROLLBACK on
                // whichever server connection ran it, so it works behind a pooler in transaction mode too, and no
                // statement timeout applies (none is set outside the store's transactions).
                try connection.script("BEGIN")
                do {
                    guard try connection.queryOne("SELECT pg_try_advisory_xact_lock(?) AS taken", [.integer(Self.migrationLock)])?.bool("taken") == true else {
                        try connection.script("ROLLBACK")
                        guard waited < waitSeconds else {
                            throw StorageError(.busy, "another server has been migrating this database for \(waited) s; retry when it is done")
                        }
                        waiting(waited)
                        Self.sleep(seconds: 1)
                        waited += 1
                        continue
                    }
                    let names = try Self.applyPending(migrations, connection)
                    try connection.commit()
                    return names
                } catch {
                    if !connection.isIdle { try? connection.script("ROLLBACK") }
                    throw error
                }
            }
        }
    }

    /// Applies, in the open transaction that holds the migration lock, the migrations not yet recorded; returns
    /// their names. All of them commit together or none does.
    private static func applyPending(_ migrations: [Migration], _ connection: PostgresConnection) throws -> [String] {
        try connection.script(createTable)
        let applied = try applied(connection)
        try Migration.check(applied: applied, against: migrations)
        let done = Set(applied.map(\.name))
        var names: [String] = []
        for migration in migrations where !done.contains(migration.name) {
            do {
                try connection.script(migration.sql)
                try connection.execute(
                    "INSERT INTO schema_migrations (name, sha256, applied_at) VALUES (?, ?, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))",
                    [.text(migration.name), .text(migration.sha256)])
            } catch {
                throw MigrationError.failed(migration.fileName, (error as? PostgresError) ?? PostgresError(sqlState: nil, "\(error)"))
            }
            names.append(migration.name)
        }
        return names
    }

    public func migrate(directory: String) throws -> [String] {
        try migrate(directory: directory, waitSeconds: 120, waiting: { _ in })
    }

    public func migrationStatus(directory: String) throws -> (applied: [String], pending: [String]) {
        let migrations = try Migration.load(directory: directory + "/" + Self.migrationsFolder)
        let applied = try read { connection -> [Migration.Applied] in
            guard try connection.queryOne("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")?.bool("present") == true else { return [] }
            return try Self.applied(connection)
        }
        try Migration.check(applied: applied, against: migrations)
        let names = Set(applied.map(\.name))
        return (applied.map(\.name), migrations.map(\.name).filter { !names.contains($0) })
    }

    private static func applied(_ connection: any SQLConnection) throws -> [Migration.Applied] {
        try connection.query("SELECT name, sha256 FROM schema_migrations ORDER BY name").map {
            Migration.Applied(name: try $0.text("name"), sha256: try $0.text("sha256"))
        }
    }

    private static func sleep(seconds: Int) {
        let deadline = monotonicNanoseconds() + UInt64(seconds) * 1_000_000_000
        let lock = ConditionLock()
        lock.withLock { while lock.wait(untilNanoseconds: deadline) {} }  // true: woken early; false: the deadline passed
    }
}
