import Foundation
@testable import PostgreSQL
import Storage
import Synchronization
import Testing
import TestThreads
import ThrowawayPostgres
import TestSupport

/// The PostgreSQL driver against a real server (the throwaway one `make test` starts): placeholders, values both
/// ways, SQLSTATEs as the store's failures, transactions and savepoints, the pool, and migrations under the lock.
@Suite("PostgreSQL driver")
struct PostgreSQLTests {
    /// A driver over a database of its own, dropped with this value.
    final class Fixture {
        let throwaway: ThrowawayPostgres.Database
        let database: PostgresDatabase

        init() throws {
            throwaway = try ThrowawayPostgres.database()
            database = try PostgresDatabase(PostgresDatabase.Configuration(url: throwaway.url))
        }
    }

    @Test(arguments: [
        ("SELECT ? AS a, ? AS b", "SELECT $1 AS a, $2 AS b"),
        ("SELECT '?' AS q, ? AS v", "SELECT '?' AS q, $1 AS v"),
        ("SELECT \"odd?\" FROM t WHERE x = ? -- why?\nAND y = ?", "SELECT \"odd?\" FROM t WHERE x = $1 -- why?\nAND y = $2"),
        ("SELECT 'it''s ?' AS s, ?", "SELECT 'it''s ?' AS s, $1"),
    ])
    func placeholdersAreNumberedOutsideQuotesAndComments(_ sql: String, _ numbered: String) throws {
        #expect(try Placeholders.numbered(sql) == numbered)
    }

    /// SQL whose quoting the placeholder scan cannot follow is refused, not numbered wrong.
    @Test(arguments: [
        "SELECT ? /* a ? in a block comment */",
        "SELECT $$ it's ? $$, ?",
        "SELECT $body$ ? $body$",
        "SELECT E'it\\'s ?', ?",
        "SELECT doc ? 'key' FROM t WHERE doc ?| ?",
        "SELECT doc ?& ?",
    ])
    func sqlThePlaceholderScanCannotFollowIsRefused(_ sql: String) {
        #expect(throws: StorageError.self) { try Placeholders.numbered(sql) }
    }

    @Test func numberedParametersAndIdentifiersEndingInEAreStillFine() throws {
        #expect(try Placeholders.numbered("SELECT $1::text, name FROM t WHERE name = ? AND type='x'") == "SELECT $1::text, name FROM t WHERE name = $1 AND type='x'")
    }

    @Test func valuesRoundTripWithTheirTypes() throws {
        let fixture = try Fixture(), database = fixture.database
        let bytes: [UInt8] = [0, 1, 2, 0xFE, 0xFF, 0x5C, 0x27]
        let row = try database.write { db -> Row? in
            try db.execute("CREATE TABLE v (i BIGINT, t TEXT, b BYTEA, r DOUBLE PRECISION, n TEXT, e BYTEA)")
            try db.execute("INSERT INTO v VALUES (?, ?, ?, ?, ?, ?)",
                           [.integer(-9_007_199_254_740_993), .text("héllo ' \" ? \u{1F600}"), .blob(bytes), .real(0.5), .null, .blob([])])
            return try db.queryOne("SELECT i, t, b, r, n, e, SUM(i) OVER () AS total, COUNT(*) OVER () AS rows, i > 0 AS positive FROM v")
        }
        let r = try #require(row)
        #expect(try r.integer("i") == -9_007_199_254_740_993)
        #expect(try r.text("t") == "héllo ' \" ? \u{1F600}")
        #expect(try r.blob("b") == bytes)
        #expect(try r.value("r") == .real(0.5))
        #expect(try r.optionalText("n") == nil)
        #expect(try r.blob("e") == [])
        #expect(try r.integer("total") == -9_007_199_254_740_993, "SUM of bigint is numeric: read as an integer")
        #expect(try r.integer("rows") == 1)
        #expect(try r.bool("positive") == false)
    }

    @Test func executeAnswersTheRowsChangedAndReturningRowsAreRead() throws {
        let fixture = try Fixture(), database = fixture.database
        try database.write { db in
            try db.execute("CREATE TABLE c (k TEXT PRIMARY KEY, n BIGINT NOT NULL)")
            #expect(try db.execute("INSERT INTO c VALUES (?, ?), (?, ?) ON CONFLICT (k) DO NOTHING", [.text("a"), .integer(1), .text("b"), .integer(2)]) == 2)
            #expect(try db.execute("INSERT INTO c VALUES (?, ?) ON CONFLICT (k) DO NOTHING", [.text("a"), .integer(9)]) == 0)
            #expect(try db.execute("UPDATE c SET n = n + 1 WHERE n < ?", [.integer(2)]) == 1)
            let deleted = try db.query("DELETE FROM c WHERE k IN (SELECT k FROM c ORDER BY k LIMIT ?) RETURNING k", [.integer(1)])
            #expect(try deleted.map { try $0.text("k") } == ["a"])
        }
    }

    @Test func constraintViolationsAreTheStoresFailures() throws {
        let fixture = try Fixture(), database = fixture.database
        try database.write { db in
            try db.execute("CREATE TABLE p (id TEXT PRIMARY KEY, n BIGINT CHECK (n > 0))")
            try db.execute("CREATE TABLE ch (p TEXT REFERENCES p(id))")
            try db.execute("INSERT INTO p VALUES (?, ?)", [.text("x"), .integer(1)])
        }
        func kind(_ sql: String, _ arguments: [SQLValue]) -> StorageError.Kind? {
            do {
                _ = try database.write { db in try db.execute(sql, arguments) }
                return nil
            } catch {
                return database.failure(of: error)?.kind
            }
        }
        #expect(kind("INSERT INTO p VALUES (?, ?)", [.text("x"), .integer(2)]) == .unique)
        #expect(kind("INSERT INTO p VALUES (?, ?)", [.text("y"), .integer(0)]) == .check)
        #expect(kind("INSERT INTO ch VALUES (?)", [.text("nobody")]) == .foreignKey)
        #expect(kind("SELECT nonsense FROM nowhere", []) == .other)
    }

    @Test func aFailedSavepointUndoesItselfAndTheTransactionGoesOn() throws {
        let fixture = try Fixture(), database = fixture.database
        _ = try database.write { db in try db.execute("CREATE TABLE s (k TEXT PRIMARY KEY)") }
        try database.write { db in
            try db.execute("INSERT INTO s VALUES (?)", [.text("first")])
            do {
                _ = try db.savepoint { try db.execute("INSERT INTO s VALUES (?)", [.text("first")]) }
                Issue.record("a duplicate key was inserted")
            } catch {
                #expect(database.failure(of: error)?.kind == .unique, "\(error)")
            }
            _ = try db.savepoint { try db.execute("INSERT INTO s VALUES (?)", [.text("second")]) }
        }
        #expect(try database.read { db in try db.query("SELECT k FROM s ORDER BY k").map { try $0.text("k") } } == ["first", "second"])
        // A write that throws is rolled back whole.
        struct Planned: Error {}
        #expect(throws: Planned.self) {
            try database.write { db in
                try db.execute("INSERT INTO s VALUES (?)", [.text("third")])
                throw Planned()
            }
        }
        #expect(try database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM s")?.int("n") } == 2)
    }

    @Test func twentyConcurrentConditionalUpdatesOfOneCounterAdvanceItOnce() throws {
        let fixture = try Fixture(), database = fixture.database
        try database.write { db in
            try db.execute("CREATE TABLE k (id TEXT PRIMARY KEY, counter BIGINT NOT NULL)")
            try db.execute("INSERT INTO k VALUES (?, ?)", [.text("key"), .integer(0)])
        }
        let won = concurrently(20) { _ in
            (try? database.write { db in try db.execute("UPDATE k SET counter = ? WHERE id = ? AND counter < ?", [.integer(7), .text("key"), .integer(7)]) }) ?? -1
        }
        #expect(won.sorted() == Array(repeating: 0, count: 19) + [1])
    }

    @Test func aLostConnectionIsReplacedOnItsNextUse() throws {
        let fixture = try Fixture(), database = fixture.database
        let pid = try database.read { db in try db.queryOne("SELECT pg_backend_pid() AS pid")?.integer("pid") }
        let admin = try PostgresConnection(url: try ThrowawayPostgres.serverURL())
        _ = try admin.queryOne("SELECT pg_terminate_backend(?::int) AS done", [.integer(try #require(pid))])
        let first = Result { try database.read { db in try db.queryOne("SELECT 1 AS one")?.integer("one") } }
        if case .failure(let error) = first {
            #expect(database.failure(of: error)?.kind == .unavailable, "\(error)")
        }
        let again = try database.read { db in try db.queryOne("SELECT pg_backend_pid() AS pid")?.integer("pid") }
        #expect(again != pid)
    }

    @Test func aWrongPasswordOrAddressIsAnErrorAtOnceWithoutThePassword() throws {
        let url = try ThrowawayPostgres.serverURL()
        let refused = url.replacingOccurrences(of: "127.0.0.1:", with: "127.0.0.1:1").replacingOccurrences(of: "postgres@", with: "postgres:hunter2secret@")
        var configuration = PostgresDatabase.Configuration(url: refused)
        configuration.connectTimeoutSeconds = 2
        let error = #expect(throws: PostgresError.self) { try PostgresDatabase(configuration) }
        #expect(error?.description.contains("hunter2secret") == false)
        #expect(error?.storageError.kind == .unavailable)
    }

    @Test func migrationsApplyOnceUnderTheLockAndAnEditStopsThem() throws {
        let fixture = try Fixture(), database = fixture.database
        let temporary = try TemporaryDirectory("gatehouse-pg-migrations")
        let directory = temporary.path
        try FileManager.default.createDirectory(atPath: directory + "/postgresql", withIntermediateDirectories: true)
        func write(_ name: String, _ sql: String) throws { try sql.write(toFile: directory + "/postgresql/" + name, atomically: true, encoding: .utf8) }
        try write("0001_a.sql", "CREATE TABLE a (id BIGINT PRIMARY KEY);\nINSERT INTO a VALUES (1);")
        try write("0002_b.sql", "CREATE TABLE b (id BIGINT PRIMARY KEY);")
        // Three servers starting together: one migrates, the others find nothing left.
        let others = try (0..<2).map { _ in try PostgresDatabase(database.configuration) }
        let applied = concurrently(3) { i in (try? ([database] + others)[i].migrate(directory: directory)) ?? ["failed"] }
        #expect(applied.flatMap { $0 }.sorted() == ["0001_a", "0002_b"])
        #expect(try database.migrationStatus(directory: directory) == (["0001_a", "0002_b"], []))
        try write("0001_a.sql", "CREATE TABLE a (id BIGINT PRIMARY KEY);")
        #expect(throws: MigrationError.self) { try database.migrate(directory: directory) }
        try write("0001_a.sql", "CREATE TABLE a (id BIGINT PRIMARY KEY);\nINSERT INTO a VALUES (1);")
        try write("0003_broken.sql", "CREATE TABLE c (id BIGINT);\nINSERT INTO nowhere VALUES (1);")
        let failed = #expect(throws: MigrationError.self) { try database.migrate(directory: directory) }
        guard case .failed(let file, _)? = failed else { Issue.record("expected .failed, got \(String(describing: failed))"); return }
        #expect(file == "0003_broken.sql")
        #expect(try database.read { db in try db.queryOne("SELECT to_regclass('c') IS NULL AS gone")?.bool("gone") } == true)
    }

    // MARK: Hardening (issue 33: durability, timeouts, aborted commits, NUL, the pool)

    /// `synchronous_commit` is on in every write transaction whatever the server's or the database's default, and
    /// off only when the configuration relaxes it (`--durability normal`).
    @Test func writesCommitSynchronouslyWhateverTheServerSays() throws {
        let throwaway = try ThrowawayPostgres.database()
        let admin = try ThrowawayPostgres.adminConnection(throwaway)
        try admin.script("ALTER DATABASE \(throwaway.url.split(separator: "/").last ?? "") SET synchronous_commit = off")
        let durable = try PostgresDatabase(PostgresDatabase.Configuration(url: throwaway.url))
        #expect(try durable.write { db in try db.queryOne("SHOW synchronous_commit")?.text("synchronous_commit") } == "on")
        var relaxedConfiguration = PostgresDatabase.Configuration(url: throwaway.url)
        relaxedConfiguration.synchronousCommit = false
        let relaxed = try PostgresDatabase(relaxedConfiguration)
        #expect(try relaxed.write { db in try db.queryOne("SHOW synchronous_commit")?.text("synchronous_commit") } == "off")
    }

    /// The statement timeout holds in every transaction even when the URL's `options` tries to lift it, and it is
    /// set per transaction (`SET LOCAL`), so nothing of it stays on the session for a pooler's other clients.
    @Test func theStatementTimeoutHoldsWhateverTheURLSays() throws {
        let throwaway = try ThrowawayPostgres.database()
        let separator = throwaway.url.contains("?") ? "&" : "?"
        var configuration = PostgresDatabase.Configuration(url: throwaway.url + separator + "options=-c%20statement_timeout%3D0")
        configuration.statementTimeoutMilliseconds = 250
        let database = try PostgresDatabase(configuration)
        #expect(try database.read { db in try db.queryOne("SHOW statement_timeout")?.text("statement_timeout") } == "250ms")
        #expect(try database.write { db in try db.queryOne("SHOW statement_timeout")?.text("statement_timeout") } == "250ms")
        #expect(throws: PostgresError.self) { try database.write { db in try db.execute("SELECT pg_sleep(2)") } }
        // Outside a transaction the session keeps the URL's setting: nothing was SET on the session.
        let session = try PostgresConnection(url: configuration.url, defaults: configuration.defaults)
        try session.script("SELECT 1")
        #expect(try session.queryOne("SHOW statement_timeout")?.text("statement_timeout") == "0")
    }

    /// A transaction an error aborted answers `COMMIT` with `ROLLBACK` and no error: the write fails rather than
    /// returning as if it were kept.
    @Test func aCommitThatRolledBackIsAFailure() throws {
        let fixture = try Fixture(), database = fixture.database
        try database.write { db in _ = try db.execute("CREATE TABLE kept (n BIGINT)") }
        let error = #expect(throws: PostgresError.self) {
            try database.write { db in
                _ = try db.execute("INSERT INTO kept (n) VALUES (?)", [.integer(1)])
                _ = try? db.execute("INSERT INTO no_such_table (n) VALUES (?)", [.integer(2)])  // swallowed: the transaction is aborted
            }
        }
        #expect(error?.sqlState == "40000", "a COMMIT answered with ROLLBACK is a transaction rollback (40000)")
        #expect(try database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM kept")?.int("n") } == 0)
        // The connection went back to the pool usable.
        #expect(try database.read { db in try db.queryOne("SELECT 1 AS one")?.int("one") } == 1)
    }

    /// PostgreSQL cannot store U+0000 in text and libpq would cut the value there: it is refused, never truncated.
    @Test func aTextWithNULIsRefusedNotCut() throws {
        let fixture = try Fixture(), database = fixture.database
        try database.write { db in _ = try db.execute("CREATE TABLE texts (t TEXT)") }
        #expect {
            try database.write { db in _ = try db.execute("INSERT INTO texts (t) VALUES (?)", [.text("admin\u{0}@example.com")]) }
        } throws: { ($0 as? StorageError)?.kind == .invalidValue }
        #expect(try database.read { db in try db.queryOne("SELECT COUNT(*) AS n FROM texts")?.int("n") } == 0)
    }

    /// A caller waits for a pooled connection only so long, then the database counts as unavailable (no hang past
    /// the bound when every connection is held by statements that do not come back).
    @Test func waitingForAConnectionIsBounded() throws {
        let throwaway = try ThrowawayPostgres.database()
        var configuration = PostgresDatabase.Configuration(url: throwaway.url)
        configuration.poolSize = 1
        configuration.checkoutTimeoutMilliseconds = 200
        #expect(configuration.defaults.contains { $0.0 == "tcp_user_timeout" && $0.1 == "10000" })
        let database = try PostgresDatabase(configuration)
        let holding = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let holder = Thread {
            _ = try? database.write { _ in
                holding.signal()
                release.wait()
            }
        }
        holder.start()
        holding.wait()
        let started = ContinuousClock.now
        #expect {
            try database.read { _ in }
        } throws: { ($0 as? StorageError)?.kind == .unavailable }
        #expect(ContinuousClock.now - started < .seconds(5))
        release.signal()
    }

    /// Every SQLSTATE the store relies on maps to its kind of failure (a conflict is 409, a busy or lost database 503,
    /// anything else a 500 without its text).
    @Test(arguments: [
        ("23505", StorageError.Kind.unique), ("23503", .foreignKey), ("23514", .check), ("23502", .check),
        ("40001", .busy), ("40P01", .busy), ("55P03", .busy),
        ("57014", .unavailable), ("57P01", .unavailable), ("57P02", .unavailable), ("57P03", .unavailable), ("53300", .unavailable),
        ("08006", .unavailable), ("08001", .unavailable), ("42601", .other), ("42P05", .other),
    ])
    func sqlStatesMapToTheStoresFailures(_ state: String, _ kind: StorageError.Kind) {
        #expect(PostgresError(sqlState: state, "m").storageError.kind == kind)
        #expect(PostgresError(sqlState: nil, "lost").storageError.kind == .unavailable)
        #expect(PostgresError(sqlState: state, "m").isRetryable == (state == "40001" || state == "40P01"))
    }

    /// A transaction that met a serialization failure or a deadlock runs again, up to `retries` times; then the
    /// failure is the caller's. Anything else is not retried.
    @Test func aSerializationFailureRunsTheTransactionAgainABoundedNumberOfTimes() throws {
        let fixture = try Fixture(), database = fixture.database
        let attempts = Mutex(0)
        try database.write { _ in
            let n = attempts.withLock { $0 += 1; return $0 }
            if n < 3 { throw PostgresError(sqlState: n == 1 ? "40001" : "40P01", "lost a race") }
        }
        #expect(attempts.withLock { $0 } == 3)
        attempts.withLock { $0 = 0 }
        #expect(throws: PostgresError.self) {
            try database.write { _ in
                attempts.withLock { $0 += 1 }
                throw PostgresError(sqlState: "40001", "always")
            }
        }
        #expect(attempts.withLock { $0 } == database.configuration.retries + 1)
        attempts.withLock { $0 = 0 }
        #expect(throws: PostgresError.self) {
            try database.write { _ in
                attempts.withLock { $0 += 1 }
                throw PostgresError(sqlState: "23505", "a duplicate")
            }
        }
        #expect(attempts.withLock { $0 } == 1, "a duplicate is not run again")
    }
}
