import PostgreSQL
import Storage

/// Opening a store on PostgreSQL: for deployments that run several servers on one database (docs/architecture.md "Storage:
/// one seam, two engines"). With `Store+SQLite`, the only place of the domain that names an engine.
extension Store {
    /// Connects to the PostgreSQL database at `url` (handed to libpq whole) with a pool of `poolSize` connections,
    /// applies the pending migrations of `migrationsDirectory` (its `postgresql/` folder) under the migration lock,
    /// waiting for another server that holds it (`waiting` hears the seconds waited), and opens the store. Returns
    /// the store and the migrations applied. `durability` sets `synchronous_commit` in every write transaction
    /// (``CommitDurability/full``: on, whatever the server's default; `normal`: off); `preparedStatements` false sends
    /// every statement whole, for a pooler in transaction mode.
    /// - Throws: `StoreError.cannotOpen` when PostgreSQL cannot be reached or refuses the connection (the message
    ///   hides the password), `StoreError.newerThanCode`, `MigrationError`, `StoreError.wrongMasterKey`.
    static func open(postgresURL url: String, migrationsDirectory: String, masterKey: [UInt8], poolSize: Int = 8,
                            durability: CommitDurability = .full, preparedStatements: Bool = true, clock: TimeSource = .system, waiting: (Int) -> Void = { _ in }) throws -> (store: Store, applied: [String]) {
        var configuration = PostgresDatabase.Configuration(url: url)
        configuration.poolSize = poolSize
        configuration.synchronousCommit = durability == .full
        configuration.preparedStatements = preparedStatements
        let database: PostgresDatabase
        do {
            database = try PostgresDatabase(configuration)
        } catch let error as PostgresError {
            let location = DatabaseLocation(url)
            throw StoreError.cannotOpen("cannot connect to \(location.redacted): \(location.scrubbing(error.message))")
        }
        let applied = try migrating {
            try database.migrate(directory: migrationsDirectory, waitSeconds: 120, waiting: waiting)
        }
        return (try Store(database: database, masterKey: masterKey, clock: clock), applied)
    }

    /// Runs a migration, a database migrated by a newer build refused as `StoreError.newerThanCode`.
    static func migrating<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as MigrationError {
            if case .newerThanCode = error { throw StoreError.newerThanCode(error.description) }
            throw error
        }
    }
}
