/// What an operator's one-shot commands ask of the database itself: the migrations applied and pending
/// (`gatehouse migrate`, `/readyz`), a consistent copy of a SQLite file (`gatehouse backup`), and telling every server
/// of a shared database to forget what it cached (`gatehouse caches reset`).
public final class DatabaseMaintenance: Sendable {
    private let store: Store
    private let migrationsDirectory: String

    init(_: Wiring, store: Store, migrationsDirectory: String) {
        self.store = store
        self.migrationsDirectory = migrationsDirectory
    }

    /// Applied and pending migrations.
    /// - Throws: `MigrationError`, `StorageError`.
    public func migrationStatus() throws -> (applied: [String], pending: [String]) {
        try store.migrationStatus(migrationsDirectory)
    }

    /// Writes a consistent snapshot of the database to `path` while it is in use (SQLite).
    /// - Throws: `StorageError` (PostgreSQL has no such copy: `pg_dump`).
    public func backup(to path: String) throws {
        try store.backup(to: path)
    }

    /// Tells every server of a shared database to forget everything it cached, within a second (after SQL typed by
    /// hand, which moves no revision).
    /// - Throws: `DomainError.unavailable` when the database cannot be reached.
    public func announceOutsideChanges() throws {
        try store.announceOutsideChanges()
    }
}
