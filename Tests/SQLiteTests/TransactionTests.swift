import SQLite
import Storage
import Testing
import TestSupport

@Suite struct TransactionTests {
    struct Abort: Error {}

    static func makeDatabase(_ directory: TemporaryDirectory) throws -> Database {
        let database = try Database(path: directory.file("transactions.sqlite"))
        try database.write { try $0.execute("CREATE TABLE t (v INTEGER)") }
        return database
    }

    static func values(_ database: Database) throws -> [Int64] {
        try database.read { try $0.query("SELECT v FROM t ORDER BY v").compactMap { $0["v"].int64 } }
    }

    @Test func writeCommitsOnReturnAndRollsBackOnThrow() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let returned = try database.write { connection -> Int64 in
            try connection.execute("INSERT INTO t VALUES (1)")
            return connection.lastInsertRowID
        }
        #expect(returned == 1)
        #expect(throws: Abort.self) {
            try database.write { connection in
                try connection.execute("INSERT INTO t VALUES (2)")
                throw Abort()
            }
        }
        #expect(try Self.values(database) == [1])
        // The writer is usable after a rollback.
        try database.write { try $0.execute("INSERT INTO t VALUES (3)") }
        #expect(try Self.values(database) == [1, 3])
    }

    @Test func innerSavepointRollsBackWhileTheOuterCommits() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        try database.write { connection in
            try connection.execute("INSERT INTO t VALUES (1)")
            try connection.savepoint {
                try connection.execute("INSERT INTO t VALUES (2)")
                #expect(throws: Abort.self) {
                    try connection.savepoint {
                        try connection.execute("INSERT INTO t VALUES (3)")
                        try connection.savepoint { try connection.execute("INSERT INTO t VALUES (4)") }
                        throw Abort()
                    }
                }
                try connection.execute("INSERT INTO t VALUES (5)")
            }
        }
        #expect(try Self.values(database) == [1, 2, 5])
    }

    @Test func aThrowingOuterSavepointUndoesItsCommittedInnerOne() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        try database.write { connection in
            try connection.execute("INSERT INTO t VALUES (1)")
            #expect(throws: Abort.self) {
                try connection.savepoint {
                    try connection.savepoint { try connection.execute("INSERT INTO t VALUES (2)") }
                    throw Abort()
                }
            }
        }
        #expect(try Self.values(database) == [1])
    }

    @Test func writeInsideWriteThrowsInsteadOfDeadlocking() throws {
        let directory = try TemporaryDirectory()
        let database = try Self.makeDatabase(directory)
        let error = try #require(throws: DatabaseError.self) {
            try database.write { connection in
                try connection.execute("INSERT INTO t VALUES (1)")
                try database.write { try $0.execute("INSERT INTO t VALUES (2)") }
            }
        }
        #expect(error.code == 21)
        #expect(try Self.values(database) == [])
        try database.write { try $0.execute("INSERT INTO t VALUES (3)") }
        #expect(try Self.values(database) == [3])
    }

    @Test func readRunsInsideATransactionAndLeavesTheReaderClean() throws {
        let directory = try TemporaryDirectory()
        var configuration = DatabaseConfiguration()
        configuration.readers = 1
        let database = try Database(path: directory.file("one-reader.sqlite"), configuration: configuration)
        // BEGIN inside read fails: the read is already a transaction.
        #expect(throws: DatabaseError.self) { try database.read { try $0.execute("BEGIN") } }
        #expect(throws: Abort.self) { try database.read { _ in throw Abort() } }
        // The single reader was rolled back and returned to the pool, so this neither blocks nor fails.
        #expect(try database.read { try $0.queryOne("SELECT 7")?[0] } == .integer(7))
    }
}
