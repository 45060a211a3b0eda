/// What the layers above may ask of the store's engine without knowing it: its migrations, its backup, its background
/// work and its queue of writes.
extension Store {
    /// The migrations of `directory` applied to this store's database and those still pending.
    public func migrationStatus(_ directory: String) throws -> (applied: [String], pending: [String]) {
        try database.migrationStatus(directory: directory)
    }

    /// Starts the engine's background work (SQLite: checkpoints); `failed` hears of a failure when it starts or
    /// changes (nil: it ended).
    public func startMaintenance(failed: @escaping @Sendable (String?) -> Void) {
        database.startMaintenance(failed: failed)
    }

    /// Stops the engine's background work.
    public func stopMaintenance() {
        database.stopMaintenance()
    }

    /// Database writes waiting or running (for a metrics gauge).
    public var pendingWrites: Int { database.pendingWrites }

    /// How many times the caches of each followed table (by name) were told to forget since start.
    public var cacheInvalidations: [String: Int] { revisions.invalidations }

    /// Writes a consistent snapshot of the database to `path` while the store is in use.
    public func backup(to path: String) throws {
        try database.backup(to: path)
    }
}
