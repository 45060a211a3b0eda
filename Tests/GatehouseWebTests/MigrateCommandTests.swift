import Foundation
import GatehouseTesting
import PostgreSQL
import SQLite
import Storage
import Testing
import ThrowawayPostgres
import TestSupport

/// `gatehouse migrate` opens the domain alone: on a new database it applies the migrations and does nothing else (no
/// receipt signing key is made, no template is read), so it runs from a folder that holds only `Migrations/`.
@Suite("gatehouse migrate opens only the domain", .serialized, .enabled(if: !ThrowawayPostgres.endToEnd, "on PostgreSQL in every pass already"))
struct MigrateCommandTests {
    /// A resources folder holding a copy of `Migrations/` and nothing else.
    static func migrationsOnly() throws -> TemporaryDirectory {
        let folder = try TemporaryDirectory("gatehouse-migrations-only")
        try FileManager.default.copyItem(atPath: repositoryRoot + "/Migrations", toPath: folder.file("Migrations"))
        return folder
    }

    @Test func onANewSQLiteFileItMakesNoReceiptKeyAndReadsNoTemplate() throws {
        let folder = try Self.migrationsOnly()
        let resources = folder.path
        let database = try CommandLineTests.temporaryDatabase()
        let migrated = try CommandLineTests.run(["migrate", "--database", database, "--resources", resources])
        #expect(migrated.status == 0, "\(migrated.error)")
        let migrations = try FileManager.default.contentsOfDirectory(atPath: resources + "/Migrations").filter { $0.hasSuffix(".sql") }.count
        #expect(migrated.output.contains("\(migrations) migrations applied, 0 pending"), "\(migrated.output)")
        let keys = try Database(path: database).read { db in try db.queryOne("SELECT COUNT(*) AS n FROM receipt_keys")?.int("n") }
        #expect(keys == 0, "gatehouse migrate made a receipt key")
    }

    @Test func onANewPostgreSQLDatabaseItMakesNoReceiptKeyAndReadsNoTemplate() throws {
        let folder = try Self.migrationsOnly()
        let resources = folder.path
        let database = try ThrowawayPostgres.database()
        let migrated = try CommandLineTests.run(["migrate", "--database", database.url, "--resources", resources],
                                                environment: ["GATEHOUSE_MASTER_KEY": ThrowawayPostgres.masterKey()])
        #expect(migrated.status == 0, "\(migrated.error)")
        let keys = try ThrowawayPostgres.adminConnection(database).queryOne("SELECT COUNT(*) AS n FROM receipt_keys")?.int("n")
        #expect(keys == 0, "gatehouse migrate made a receipt key")
    }
}
