import DomainTesting
import Foundation
import Gatehouse
import GatehouseTesting
import SQLite
import Storage
import Testing
import TestSupport

/// Migrations/0002 replaces raw verdicts' indexes on a database that already holds verdicts under 0001's.
@Suite("Raw verdict index migration")
struct VerdictIndexMigrationTests {
    @Test func keepsVerdictsAndLeavesOneIndex() throws {
        let temporary = try TemporaryDirectory("gatehouse-migration")
        let directory = temporary.path
        try FileManager.default.createDirectory(atPath: directory + "/Migrations", withIntermediateDirectories: true)
        let source = repositoryRoot + "/Migrations/"
        // 0001, and the revisions today's store moves on in every write (0012).
        for file in ["0001_initial.sql", "0012_revisions.sql"] {
            try FileManager.default.copyItem(atPath: source + file, toPath: directory + "/Migrations/" + file)
        }
        let clock = TestClock()
        var configuration = DomainConfiguration()
        configuration.resources = directory
        configuration.database = directory + "/db.sqlite"
        let domain = try Domain.open(configuration, clock: clock.injected)
        let migrator = Migrator(directory: directory + "/Migrations")
        let database = try Database(path: directory + "/db.sqlite")
        #expect(try migrator.status(database).applied == ["0001_initial", "0012_revisions"])
        // The environment is written as 0001 knew it: today's services read columns later migrations add.
        let environmentID = "env_old"
        try database.write { db in
            try db.execute("INSERT INTO environments (id, name, kind, created_at, updated_at) VALUES (?, 'Old', 'production', ?, ?)",
                           [.text(environmentID), .integer(clock.now), .integer(clock.now)])
        }
        let verdicts = domain.verdicts
        let batch = (0..<50).map { i in
            TrafficVerdict(at: clock.now - Int64(i) * 3000, platform: "android", provider: "play-integrity", status: "verified", reasons: [], observed: [:])
        }
        #expect(try verdicts.ingest(batch, environmentID: environmentID) == 50)

        try FileManager.default.copyItem(atPath: source + "0002_verdict_indexes_append_only.sql",
                                         toPath: directory + "/Migrations/0002_verdict_indexes_append_only.sql")
        #expect(try migrator.migrate(database) == ["0002_verdict_indexes_append_only"])
        let (count, indexes) = try database.read { db in
            (try db.queryOne("SELECT COUNT(*) AS n FROM verdicts")?.int("n"),
             try db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'verdicts' ORDER BY name").map { try $0.text("name") })
        }
        #expect(count == 50)
        #expect(indexes == ["verdicts_by_environment_hour"])

        clock.advance(by: Verdicts.rawRetention - 100_000)  // the verdicts older than 100,000 s are past retention now
        #expect(try verdicts.prune() == batch.filter { $0.at < clock.now - Verdicts.rawRetention }.count)
        #expect(try database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM verdicts")?.int("n") } == 34)
    }
}
