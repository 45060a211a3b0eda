import SQLite

/// Opening a store's database file and asking about its migrations and its backup, so that the layers above use a
/// store without SQLite's types.
extension Store {
    /// Opens (creating) the database at `path`, applies the pending migrations of `migrationsDirectory`
    /// (`NNNN_*.sql`) and opens the store over it. Returns the store and the migrations applied. Throws when a
    /// migration fails or an applied one changed, and `StoreError.wrongMasterKey`. Commits are as durable as
    /// `durability` says (``CommitDurability/full`` by default).
    public static func open(path: String, migrationsDirectory: String, masterKey: [UInt8], durability: CommitDurability = .full,
                            clock: @escaping @Sendable () -> Int64 = Store.systemClock) throws -> (store: Store, applied: [String]) {
        var configuration = DatabaseConfiguration()
        configuration.synchronous = durability == .full ? .full : .normal
        let database = try Database(path: path, configuration: configuration)
        let applied = try Migrator(directory: migrationsDirectory).migrate(database)
        return (try Store(database: database, masterKey: masterKey, clock: clock), applied)
    }

    /// The migrations of `directory` applied to this store's database and those still pending.
    public func migrationStatus(_ directory: String) throws -> (applied: [String], pending: [String]) {
        try Migrator(directory: directory).status(database)
    }

    /// Copies the database's write-ahead log into its file in the background of commits (`Database.checkpoint`);
    /// returns the log's size and how much of it is now in the file, in pages.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func checkpoint() throws -> (walPages: Int, copiedPages: Int) {
        try database.checkpoint()
    }

    /// Database writes waiting or running (for a metrics gauge).
    public var pendingWrites: Int { database.pendingWrites }

    /// Writes a consistent snapshot of the database to `path` while the store is in use.
    public func backup(to path: String) throws {
        try database.backup(to: path)
    }
}
