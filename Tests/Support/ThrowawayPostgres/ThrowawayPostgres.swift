import TestSupport
import ChildProcess
import Foundation
import PostgreSQL

/// Databases of their own for tests, in the throwaway PostgreSQL that `make test` starts beside the test run
/// (Tests/with-postgres.sh sets `GATEHOUSE_TEST_POSTGRES` to its URL).
public enum ThrowawayPostgres {
    /// Why a PostgreSQL test cannot run.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// A database created for one test, dropped (its connections ended) when the value goes away.
    public final class Database: Sendable {
        /// The URL to connect to it.
        public let url: String
        let name: String
        let admin: String

        init(url: String, name: String, admin: String) {
            self.url = url
            self.name = name
            self.admin = admin
        }

        deinit {
            if let connection = try? PostgresConnection(url: admin) {
                try? connection.script("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
            }
        }
    }

    /// Whether the end-to-end suites run on PostgreSQL in this test run (`GATEHOUSE_TEST_ENGINE=postgresql`, `make
    /// test`'s second pass over them) rather than on a SQLite file.
    public static var endToEnd: Bool {
        ProcessInfo.processInfo.environment["GATEHOUSE_TEST_ENGINE"] == "postgresql"
    }

    /// Whether the databases tests create are reached through pgBouncer in transaction mode (Tests/with-pgbouncer.sh
    /// sets `GATEHOUSE_TEST_PGBOUNCER` to its host and port): servers then run with `--database-prepared-statements off`.
    public static var pooled: Bool { pooler != nil }

    static var pooler: String? {
        ProcessInfo.processInfo.environment["GATEHOUSE_TEST_PGBOUNCER"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A fresh master key (base64 of 32 random bytes): every server of a PostgreSQL database needs the same one given.
    public static func masterKey() -> String {
        Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// The server's URL (its `postgres` database).
    /// - Throws: ``Unavailable`` when the tests run without the server `make test` starts.
    public static func serverURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["GATEHOUSE_TEST_POSTGRES"], !url.isEmpty else {
            throw Unavailable(description: "GATEHOUSE_TEST_POSTGRES is not set: run the tests with `make test`, which starts a throwaway PostgreSQL (Tests/with-postgres.sh)")
        }
        return url
    }

    /// A connection of its own to `database`, for a test to change or break things around the code under test.
    public static func adminConnection(_ database: Database) throws -> PostgresConnection {
        try PostgresConnection(url: database.url)
    }

    /// A new, empty database.
    /// - Throws: ``Unavailable``, or `PostgresError` when the server refuses.
    public static func database() throws -> Database {
        let admin = try serverURL()
        let name = "gatehouse_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        try PostgresConnection(url: admin).script("CREATE DATABASE \(name)")
        guard let slash = admin.lastIndex(of: "/") else { throw Unavailable(description: "GATEHOUSE_TEST_POSTGRES has no database path") }
        if let pooler {
            return Database(url: "postgresql://postgres@\(pooler)/\(name)", name: String(name), admin: admin)
        }
        return Database(url: admin[..<slash] + "/" + name, name: String(name), admin: admin)
    }

    /// A PostgreSQL server of a test's own (Tests/postgres-cluster.sh), which the test may stop and start under the
    /// servers it runs; removed when the value goes away.
    public final class Cluster: Sendable {
        /// Its `postgres` database's URL.
        public let url: String
        let directory: String

        public init() throws {
            directory = NSTemporaryDirectory() + "gatehouse-cluster-" + UUID().uuidString
            url = try Self.run("create", directory).split(separator: "\n").last.map(String.init) ?? ""
        }

        deinit {
            _ = try? Self.run("remove", directory)
        }

        /// A fast shutdown: every client is disconnected.
        public func stop() throws { _ = try Self.run("stop", directory) }

        /// Starts it again on the same port.
        public func start() throws { _ = try Self.run("start", directory) }

        /// A new database in it; its URL.
        public func database(_ name: String) throws -> String {
            try PostgresConnection(url: url).script("CREATE DATABASE \(name)")
            guard let slash = url.lastIndex(of: "/") else { throw Unavailable(description: "the cluster's URL has no database path") }
            return url[..<slash] + "/" + name
        }

        static func run(_ command: String, _ directory: String) throws -> String {
            // posix_spawn and waitpid (ChildProcess): Foundation's Process was seen never to notice this script's exit.
            let run = try ChildProcess("/bin/sh", [repositoryRoot + "/Tests/postgres-cluster.sh", command, directory], standardErrorPath: directory + ".err")
            defer { try? FileManager.default.removeItem(atPath: directory + ".err") }
            let (code, lines) = run.finish(timeout: 120)
            guard code == 0 else { throw Unavailable(description: "postgres-cluster.sh \(command): \(run.standardError)") }
            let text = lines.joined(separator: "\n")
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
