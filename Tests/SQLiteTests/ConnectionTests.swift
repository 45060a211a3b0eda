import Testing

@testable import SQLite
import Storage
import TestSupport

@Suite struct ConnectionTests {
    @Test func theStatementCacheReusesAPreparedStatementPerSQL() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("cache.sqlite"))
        try database.write { connection in
            try connection.execute("CREATE TABLE t (v INTEGER)")
            let before = connection.preparedStatementCount
            for value in 0..<20 {
                try connection.execute("INSERT INTO t (v) VALUES (?)", [.integer(Int64(value))])
            }
            #expect(connection.preparedStatementCount == before + 1)
            for _ in 0..<5 {
                _ = try connection.query("SELECT count(*) FROM t")
            }
            #expect(connection.preparedStatementCount == before + 2)
            #expect(try connection.queryOne("SELECT count(*) FROM t")?[0] == .integer(20))
            #expect(connection.preparedStatementCount == before + 2)
        }
    }

    @Test func theSameSQLCanRunInsideItsOwnIteration() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("nested.sqlite"))
        let pairs = try database.write { connection -> [Int64] in
            try connection.executeScript("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2), (3);")
            var sums: [Int64] = []
            try connection.forEachRow("SELECT v FROM t WHERE v >= ? ORDER BY v", [1]) { outer in
                let inner = try connection.query("SELECT v FROM t WHERE v >= ? ORDER BY v", [outer["v"]])
                sums.append(inner.compactMap { $0["v"].int64 }.reduce(0, +))
            }
            return sums
        }
        #expect(pairs == [6, 5, 3])
    }

    @Test func queryReturnsColumnsAndEveryRow() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("query.sqlite"))
        let rows = try database.write { connection -> [Row] in
            try connection.executeScript(
                """
                -- a script with comments
                CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT);
                INSERT INTO t (name) VALUES ('a'); INSERT INTO t (name) VALUES ('b');
                /* trailing comment */
                """)
            #expect(connection.lastInsertRowID == 2)
            try connection.execute("UPDATE t SET name = upper(name)")
            #expect(connection.changes == 2)
            return try connection.query("SELECT id, name AS label FROM t ORDER BY id")
        }
        #expect(rows.map(\.columns) == [["id", "label"], ["id", "label"]])
        #expect(rows.map { $0["label"] } == [.text("A"), .text("B")])
        #expect(try database.read { try $0.queryOne("SELECT id FROM t WHERE id = ?", [99]) } == nil)
    }

    @Test func executeRefusesMoreThanOneStatement() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("one.sqlite"))
        let error = try #require(throws: DatabaseError.self) {
            try database.write { try $0.execute("CREATE TABLE a (x); CREATE TABLE b (x)") }
        }
        #expect(error.code == 21)
        #expect(try database.read { try $0.query("SELECT name FROM sqlite_master") }.isEmpty)
        // A trailing semicolon or comment is not a second statement.
        try database.write { try $0.execute("CREATE TABLE a (x); -- done") }
    }

    @Test func aWrongArgumentCountIsAnErrorNotANull() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("count.sqlite"))
        let error = try #require(throws: DatabaseError.self) {
            try database.read { try $0.query("SELECT ?, ?", [1]) }
        }
        #expect(error.code == 25)  // SQLITE_RANGE
        #expect(error.sql == "SELECT ?, ?")
    }

    @Test func readersCannotWrite() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("readonly.sqlite"))
        try database.write { try $0.execute("CREATE TABLE t (v)") }
        let error = try #require(throws: DatabaseError.self) {
            try database.read { try $0.execute("INSERT INTO t VALUES (1)") }
        }
        #expect(error.primaryCode == 8)  // SQLITE_READONLY
    }

    @Test func theDatabaseIsInWALModeWithForeignKeysOn() throws {
        let directory = try TemporaryDirectory()
        var configuration = DatabaseConfiguration()
        configuration.synchronous = .full
        let database = try Database(path: directory.file("pragmas.sqlite"), configuration: configuration)
        let pragmas = try database.write { connection in
            [
                try connection.queryOne("PRAGMA journal_mode")?[0],
                try connection.queryOne("PRAGMA foreign_keys")?[0],
                try connection.queryOne("PRAGMA synchronous")?[0],
                try connection.queryOne("PRAGMA busy_timeout")?[0],
            ]
        }
        #expect(pragmas == [.text("wal"), .integer(1), .integer(2), .integer(5000)])
        #expect(try database.read { try $0.queryOne("PRAGMA query_only")?[0] } == .integer(1))
    }

    @Test func inMemoryDatabasesAreRefused() {
        #expect(throws: DatabaseError.self) { try Database(path: ":memory:") }
    }
}
