import Foundation
import SQLite
import Storage
import Testing
import TestSupport

@Suite struct MigratorTests {
    /// A database file and a migrations directory, both in a fresh temporary directory.
    final class Fixture {
        let directory: TemporaryDirectory
        let migrations: String
        let database: Database
        var migrator: Migrator { Migrator(directory: migrations) }

        init() throws {
            directory = try TemporaryDirectory()
            migrations = directory.file("Migrations")
            try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
            database = try Database(path: directory.file("app.sqlite"))
        }

        func write(_ name: String, _ sql: String) throws {
            try directory.write("Migrations/" + name, sql)
        }

        func remove(_ name: String) throws {
            try FileManager.default.removeItem(atPath: migrations + "/" + name)
        }

        func tables() throws -> [String] {
            try database.read {
                try $0.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0[0].string }
            }
        }
    }

    @Test func appliesInOrderThenSkipsWhatIsApplied() throws {
        let fixture = try Fixture()
        try fixture.write("0002_add_b.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER REFERENCES a (id));\n")
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);\n")
        try fixture.write("README.md", "not a migration")
        #expect(try fixture.migrator.status(fixture.database) == ([], ["0001_create_a", "0002_add_b"]))
        #expect(try fixture.migrator.migrate(fixture.database) == ["0001_create_a", "0002_add_b"])
        #expect(try fixture.migrator.migrate(fixture.database) == [])
        try fixture.write("0003_add_c.sql", "CREATE TABLE c (id INTEGER PRIMARY KEY);")
        #expect(try fixture.migrator.status(fixture.database) == (["0001_create_a", "0002_add_b"], ["0003_add_c"]))
        #expect(try fixture.migrator.migrate(fixture.database) == ["0003_add_c"])
        #expect(try fixture.tables() == ["a", "b", "c", "schema_migrations"])
    }

    @Test func recordsTheSHA256OfEachFile() throws {
        let fixture = try Fixture()
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);\n")
        _ = try fixture.migrator.migrate(fixture.database)
        let row = try #require(try fixture.database.read { try $0.queryOne("SELECT * FROM schema_migrations") })
        #expect(row["name"] == .text("0001_create_a"))
        // `printf 'CREATE TABLE a (id INTEGER PRIMARY KEY);\n' | sha256sum`
        #expect(row["sha256"] == .text("1a135f3506e1e509e8cea5ea63e883c5e9ca149cb442c612e03e4b6201d15f23"))
        let appliedAt = try #require(row["applied_at"].string)
        #expect(appliedAt.count == 24 && appliedAt.hasSuffix("Z") && appliedAt.dropFirst(10).first == "T")
    }

    @Test func refusesAnEditedMigration() throws {
        let fixture = try Fixture()
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        _ = try fixture.migrator.migrate(fixture.database)
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY, extra TEXT);")
        try fixture.write("0002_create_b.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY);")
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .changed(let file) = error else {
            Issue.record("expected .changed, got \(error)")
            return
        }
        #expect(file == "0001_create_a.sql")
        #expect(error.description.contains("0001_create_a.sql") && error.description.contains("new migration"))
        #expect(throws: MigrationError.self) { try fixture.migrator.status(fixture.database) }
        #expect(try fixture.tables() == ["a", "schema_migrations"])  // 0002 was not applied either
    }

    @Test func refusesAMissingMigration() throws {
        let fixture = try Fixture()
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        try fixture.write("0002_create_b.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY);")
        _ = try fixture.migrator.migrate(fixture.database)
        try fixture.remove("0001_create_a.sql")
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .missing(let file) = error else {
            Issue.record("expected .missing, got \(error)")
            return
        }
        #expect(file == "0001_create_a.sql")
        #expect(error.description.contains("Restore the file"))
    }

    @Test func refusesADatabaseNewerThanTheCode() throws {
        let fixture = try Fixture()
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        try fixture.write("0002_create_b.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY);")
        _ = try fixture.migrator.migrate(fixture.database)
        try fixture.remove("0002_create_b.sql")  // an older build: it knows only 0001
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .newerThanCode(let file) = error else {
            Issue.record("expected .newerThanCode, got \(error)")
            return
        }
        #expect(file == "0002_create_b.sql")
        #expect(error.description.contains("newer version"))
    }

    @Test func aFailingMigrationIsRolledBackAndStopsTheRun() throws {
        let fixture = try Fixture()
        try fixture.write("0001_create_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        try fixture.write("0002_broken.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY);\nINSERT INTO nowhere VALUES (1);")
        try fixture.write("0003_create_c.sql", "CREATE TABLE c (id INTEGER PRIMARY KEY);")
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .failed(let file, let engineError) = error else {
            Issue.record("expected .failed, got \(error)")
            return
        }
        let cause = try #require(engineError as? DatabaseError)
        #expect(file == "0002_broken.sql")
        #expect(cause.sql == "INSERT INTO nowhere VALUES (1);")
        #expect(try fixture.tables() == ["a", "schema_migrations"])
        #expect(try fixture.migrator.status(fixture.database) == (["0001_create_a"], ["0002_broken", "0003_create_c"]))
    }

    @Test func aForeignKeyViolationFailsTheMigration() throws {
        let fixture = try Fixture()
        // Deferred foreign keys let the orphan in until commit; the check before commit catches it.
        try fixture.write(
            "0001_orphan.sql",
            """
            PRAGMA defer_foreign_keys = ON;
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id));
            INSERT INTO child VALUES (1, 42);
            """)
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .failed(let file, let engineError) = error else {
            Issue.record("expected .failed, got \(error)")
            return
        }
        let cause = try #require(engineError as? DatabaseError)
        #expect(file == "0001_orphan.sql")
        #expect(cause.kind == .foreignKeyConstraint)
        #expect(cause.message.contains("child"))
        #expect(try fixture.tables() == ["schema_migrations"])
    }

    @Test(arguments: ["1_short.sql", "0001.sql", "0001-dash.sql", "abcd_name.sql", "0001_with space.sql", "0001_.sql"])
    func refusesABadlyNamedSQLFile(_ name: String) throws {
        let fixture = try Fixture()
        try fixture.write("0001_fine.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        try fixture.write(name, "CREATE TABLE z (id INTEGER PRIMARY KEY);")
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .badFileName(let file) = error else {
            Issue.record("expected .badFileName, got \(error)")
            return
        }
        #expect(file == name)
        #expect(try fixture.tables() == [])
    }

    @Test func refusesTwoFilesWithOneNumber() throws {
        let fixture = try Fixture()
        try fixture.write("0001_a.sql", "CREATE TABLE a (id INTEGER PRIMARY KEY);")
        try fixture.write("0001_b.sql", "CREATE TABLE b (id INTEGER PRIMARY KEY);")
        let error = try #require(throws: MigrationError.self) { try fixture.migrator.migrate(fixture.database) }
        guard case .duplicateNumber("0001_a.sql", "0001_b.sql") = error else {
            Issue.record("expected .duplicateNumber, got \(error)")
            return
        }
    }

    @Test func aMissingDirectoryIsUnreadable() throws {
        let fixture = try Fixture()
        let error = try #require(throws: MigrationError.self) {
            try Migrator(directory: fixture.directory.file("nope")).migrate(fixture.database)
        }
        guard case .unreadable = error else {
            Issue.record("expected .unreadable, got \(error)")
            return
        }
    }
}
