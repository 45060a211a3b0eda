import SQLite
import Storage

/// Opening a store on SQLite. With `Store+PostgreSQL`, the only place of the domain that names an engine
/// (`make check-imports` holds every other file of `Gatehouse` to the seam, `Storage`).
extension Store {
    /// Opens (creating) the SQLite database at `path`, applies the pending migrations of `migrationsDirectory`
    /// (`NNNN_*.sql`) and opens the store over it. Returns the store and the migrations applied. Throws when a
    /// migration fails or an applied one changed, and `StoreError.wrongMasterKey`. Commits are as durable as
    /// `durability` says (``CommitDurability/full`` by default).
    static func open(path: String, migrationsDirectory: String, masterKey: [UInt8], durability: CommitDurability = .full,
                            clock: TimeSource = .system) throws -> (store: Store, applied: [String]) {
        var configuration = DatabaseConfiguration()
        configuration.synchronous = durability == .full ? .full : .normal
        let engine = SQLiteEngine(try Database(path: path, configuration: configuration))
        let applied = try migrating { try engine.migrate(directory: migrationsDirectory) }
        return (try Store(database: engine, masterKey: masterKey, clock: clock), applied)
    }
}
