/// What the layers above may ask of the store's engine without knowing it: its migrations, its backup, its background
/// work and its queue of writes.
extension Store {
    /// The migrations of `directory` applied to this store's database and those still pending.
    func migrationStatus(_ directory: String) throws -> (applied: [String], pending: [String]) {
        try database.migrationStatus(directory: directory)
    }

    /// Whether the engine has background work of its own (SQLite: checkpoints), a job of ``DomainJobs``.
    var needsMaintenance: Bool { database.needsMaintenance }

    /// One run of the engine's background work; the seconds to wait before the next.
    /// - Throws: what the work met.
    func maintain() throws -> Double {
        try database.maintain()
    }

    /// Database writes waiting or running (for a metrics gauge).
    public var pendingWrites: Int { database.pendingWrites }

    /// How many times the caches of each followed table (by name) were told to forget since start.
    public var cacheInvalidations: [String: Int] { revisions.invalidations }

    /// Writes a consistent snapshot of the database to `path` while the store is in use.
    func backup(to path: String) throws {
        try database.backup(to: path)
    }
}
