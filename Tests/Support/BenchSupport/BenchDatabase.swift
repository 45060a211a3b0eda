import Crypto
import Foundation
import Gatehouse
import PostgreSQL
import SQLite
import Storage

/// A bench's domain on `DIR/db.sqlite`, or on the PostgreSQL database `BENCH_DATABASE` names (a `postgres://` URL),
/// opened as a server opens it (``Domain/open(_:clock:random:log:)``): migrated, sealed with the master key of
/// `GATEHOUSE_MASTER_KEY` (as the server that serves it reads it), holding one production environment named "Bench"
/// with the registrations the bench needs.
public struct BenchDatabase {
    public let domain: Domain
    /// The environment after its patch.
    public let environment: Environment
    /// The environment's public API key (what a phone sends).
    public let publicKey: String
    /// The environment's secret API key (what an app's backend sends), shown once at creation.
    public let secretKey: String

    /// Opens the domain over a new database with the migrations of `repository/Migrations` (`configure` changes the
    /// configuration first), then creates the environment and applies `patch` to it.
    /// - Throws: `BenchError` when `GATEHOUSE_MASTER_KEY` is not base64 of 32 bytes; the domain's errors.
    public init(directory: String, repository: String, patch: EnvironmentPatch,
                configure: (inout DomainConfiguration) -> Void = { _ in }) throws {
        guard let text = ProcessInfo.processInfo.environment["GATEHOUSE_MASTER_KEY"], Base64.decode(text)?.count == 32 else {
            throw BenchError("set GATEHOUSE_MASTER_KEY to base64 of 32 bytes")
        }
        var configuration = DomainConfiguration()
        configuration.resources = repository
        configuration.masterKey = text
        configuration.database = Self.url ?? directory + "/db.sqlite"
        configure(&configuration)
        domain = try Domain.open(configuration)
        let (created, issued) = try domain.environments.create(name: "Bench", kind: .production, actor: .system)
        environment = try domain.environments.patch(created.id, with: patch, actor: .system)
        publicKey = issued.first { $0.key.type == .public }?.key.publicValue ?? ""
        secretKey = issued.compactMap(\.secret).first ?? ""
    }

    /// The PostgreSQL URL of `BENCH_DATABASE`, if set.
    static var url: String? {
        ProcessInfo.processInfo.environment["BENCH_DATABASE"].flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension BenchDatabase {
    /// Creates another production environment with `patch` applied; returns its public key.
    /// - Throws: the store's errors.
    public func addEnvironment(patch: EnvironmentPatch, name: String = "Bench policy") throws -> String {
        let (created, issued) = try domain.environments.create(name: name, kind: .production, actor: .system)
        _ = try domain.environments.patch(created.id, with: patch, actor: .system)
        return issued.first { $0.key.type == .public }?.key.publicValue ?? ""
    }

    /// The bench's database engine alone, for rows a bench writes in bulk around the domain (a million attested
    /// keys): PostgreSQL when `BENCH_DATABASE` holds a URL, else `directory/db.sqlite`.
    public static func open(_ directory: String) throws -> any SQLDatabase {
        if let url {
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
