import PostgreSQL

/// Opening a store on PostgreSQL: for deployments that run several servers on one database (DESIGN.md "Storage:
/// one seam, two engines"). With `Store+SQLite`, the only place of the domain that names an engine.
extension Store {
    /// Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL) rather than a SQLite file.
    public static func isPostgresURL(_ database: String) -> Bool {
        database.hasPrefix("postgres://") || database.hasPrefix("postgresql://")
    }

    /// Connects to the PostgreSQL database at `url` (handed to libpq whole) with a pool of `poolSize` connections,
    /// applies the pending migrations of `migrationsDirectory` (its `postgresql/` folder) under the migration lock,
    /// waiting for another server that holds it (`waiting` hears the seconds waited), and opens the store. Returns
    /// the store and the migrations applied.
    /// - Throws: `PostgresError` when it cannot connect, `MigrationError`, `StoreError.wrongMasterKey`.
    public static func open(postgresURL url: String, migrationsDirectory: String, masterKey: [UInt8], poolSize: Int = 8,
                            clock: Clock = .system, waiting: (Int) -> Void = { _ in }) throws -> (store: Store, applied: [String]) {
        var configuration = PostgresDatabase.Configuration(url: url)
        configuration.poolSize = poolSize
        let database = try PostgresDatabase(configuration)
        let applied = try database.migrate(directory: postgresMigrations(migrationsDirectory), waitSeconds: 120, waiting: waiting)
        return (try Store(database: database, masterKey: masterKey, clock: clock), applied)
    }

    /// The PostgreSQL migrations beside SQLite's: the same numbers and names, in the engine's own types.
    public static func postgresMigrations(_ migrationsDirectory: String) -> String {
        migrationsDirectory + "/postgresql"
    }
}
