import Crypto
import Foundation
import Gatehouse
import PostgreSQL
import SQLite
import Storage

/// A bench's database: `DIR/db.sqlite`, or the PostgreSQL database `BENCH_DATABASE` names (a `postgres://` URL);
/// migrated, sealed with the master key of `GATEHOUSE_MASTER_KEY` (as the server that serves it reads it), holding one
/// production environment named "Bench" with the registrations the bench needs.
public struct BenchDatabase {
    public let database: any SQLDatabase
    public let store: Store
    /// The environment after its patch.
    public let environment: Environment
    /// The environment's public API key (what a phone sends).
    public let publicKey: String
    /// The environment's secret API key (what an app's backend sends), shown once at creation.
    public let secretKey: String

    /// Creates and migrates `directory/db.sqlite` with the migrations of `repository/Migrations`, then creates the
    /// environment and applies `patch` to it.
    /// - Throws: `BenchError` when `GATEHOUSE_MASTER_KEY` is not base64 of 32 bytes; the store's errors.
    public init(directory: String, repository: String, patch: EnvironmentPatch) throws {
        guard let text = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY"], let masterKey = Base64.decode(text) else {
            throw BenchError("set GATEHOUSE_MASTER_KEY to base64 of 32 bytes")
        }
        database = try Self.open(directory)
        _ = try database.migrate(directory: repository + "/Migrations")
        store = try Store(database: database, masterKey: masterKey)
        let environments = Environments(store: store)
        let (created, issued) = try environments.create(name: "Bench", kind: .production, actor: .system)
        environment = try environments.patch(created.id, with: patch, actor: .system)
        publicKey = issued.first { $0.key.type == .public }?.key.publicValue ?? ""
        secretKey = issued.compactMap(\.secret).first ?? ""
    }
}

extension BenchDatabase {
    /// Creates another production environment with `patch` applied; returns its public key.
    /// - Throws: the store's errors.
    public func addEnvironment(patch: EnvironmentPatch, name: String = "Bench policy") throws -> String {
        let environments = Environments(store: store)
        let (created, issued) = try environments.create(name: name, kind: .production, actor: .system)
        _ = try environments.patch(created.id, with: patch, actor: .system)
        return issued.first { $0.key.type == .public }?.key.publicValue ?? ""
    }

    /// The bench's database engine: PostgreSQL when `BENCH_DATABASE` holds a URL, else `directory/db.sqlite`.
    public static func open(_ directory: String) throws -> any SQLDatabase {
        if let url = ProcessInfo.processInfo.environment["BENCH_DATABASE"], !url.isEmpty {
            return try PostgresDatabase(PostgresDatabase.Configuration(url: url))
        }
        return SQLiteEngine(try Database(path: directory + "/db.sqlite"))
    }
}

/// A preparation step that failed.
public struct BenchError: Error, CustomStringConvertible {
    public let description: String

    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
