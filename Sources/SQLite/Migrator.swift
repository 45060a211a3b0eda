import Storage

/// Brings a database's schema up to date from plain SQL files named `NNNN_name.sql`.
///
/// Each pending file runs in its own write transaction, followed by `PRAGMA foreign_key_check`
/// (https://sqlite.org/pragma.html#pragma_foreign_key_check): a violation fails that migration. Applied files are
/// recorded in `schema_migrations(name, sha256, applied_at)`, with `name` the file name without `.sql` and
/// `applied_at` in UTC, ISO 8601. Before applying anything it refuses (see `MigrationError`) a database whose
/// applied migrations were edited, deleted, or are newer than the files.
///
/// Because each migration runs inside a transaction: `PRAGMA foreign_keys = OFF` in a migration does nothing
/// (https://sqlite.org/foreignkeys.html#fk_enable: it is a no-op within a transaction), so a table rebuild
/// cannot switch foreign keys off, and a DROP TABLE of a parent still fires its `ON DELETE` actions; and a
/// migration must not contain BEGIN, COMMIT or ROLLBACK. Files with other extensions are ignored, as are hidden
/// files.
public struct Migrator: Sendable {
    /// The directory holding the `.sql` files.
    public let directory: String

    /// A migrator for the `NNNN_name.sql` files in `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// Applies every pending migration, in number order, each in its own transaction.
    /// - Returns: the names applied by this call (without `.sql`), in order; empty when up to date.
    /// - Throws: `MigrationError` (nothing is applied when the checks fail; a failing migration is rolled back,
    ///   the ones before it stay applied), or `DatabaseError`.
    public func migrate(_ database: Database) throws -> [String] {
        let migrations = try Migration.load(directory: directory)
        try database.write { _ = try $0.execute(Migrator.createTable) }
        let applied = try database.read { try appliedMigrations($0) }
        try Migration.check(applied: applied, against: migrations)
        let appliedNames = Set(applied.map(\.name))
        var done: [String] = []
        for migration in migrations where !appliedNames.contains(migration.name) {
            if try database.write({ try apply(migration, on: $0) }) {
                done.append(migration.name)
            }
        }
        return done
    }

    /// The applied migrations (in order) and the pending ones, after the same checks as `migrate`.
    /// - Throws: `MigrationError` or `DatabaseError`.
    public func status(_ database: Database) throws -> (applied: [String], pending: [String]) {
        let migrations = try Migration.load(directory: directory)
        let applied = try database.read { connection -> [Migration.Applied] in
            let table = try connection.queryOne(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
            return table == nil ? [] : try appliedMigrations(connection)
        }
        try Migration.check(applied: applied, against: migrations)
        let appliedNames = Set(applied.map(\.name))
        return (applied.map(\.name), migrations.map(\.name).filter { !appliedNames.contains($0) })
    }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS schema_migrations (
            name TEXT PRIMARY KEY NOT NULL,
            sha256 TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )
        """

    private func appliedMigrations(_ connection: Connection) throws -> [Migration.Applied] {
        try connection.query("SELECT name, sha256 FROM schema_migrations ORDER BY name").map {
            Migration.Applied(name: try $0.text("name"), sha256: try $0.text("sha256"))
        }
    }

    /// Runs one migration inside the caller's transaction; false when another process applied it first.
    private func apply(_ migration: Migration, on connection: Connection) throws -> Bool {
        let already = try connection.queryOne("SELECT 1 FROM schema_migrations WHERE name = ?", [.text(migration.name)])
        guard already == nil else { return false }
        do {
            try connection.executeScript(migration.sql)
            guard connection.isInTransaction else {
                throw DatabaseError.misuse("the migration ended the transaction; remove BEGIN/COMMIT from it")
            }
            let violations = try connection.query("PRAGMA foreign_key_check")
            if let first = violations.first {
                // https://sqlite.org/pragma.html#pragma_foreign_key_check: table, rowid, parent table, key index.
                let table = (try? first.value(at: 0).string) ?? nil
                let rowid = (try? first.value(at: 1).int64) ?? nil
                let parent = (try? first.value(at: 2).string) ?? nil
                let message = "\(violations.count) foreign key violation(s); the first is rowid \(rowid.map(String.init) ?? "?") of table "
                    + "\(table ?? "?") referencing \(parent ?? "?")"
                throw DatabaseError(code: DatabaseError.constraintForeignKey, message: message, sql: "PRAGMA foreign_key_check")
            }
        } catch let error as DatabaseError {
            throw MigrationError.failed(migration.fileName, error)
        }
        try connection.execute(
            "INSERT INTO schema_migrations (name, sha256, applied_at) VALUES (?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
            [.text(migration.name), .text(migration.sha256)])
        return true
    }
}
