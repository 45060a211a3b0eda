import DomainTesting
import Foundation
@testable import Gatehouse
import PostgreSQL
import SQLite
import Storage
import TestThreads
import Testing
import ThrowawayPostgres

/// Group commit: concurrent changes share transactions, each caller learns its own result, and a change that fails
/// undoes only itself; on both engines (PostgreSQL runs a batch without savepoints until a change throws).
@Suite("Group commit")
struct GroupCommitTests {
    struct Refused: Error {}

    /// An empty table `t` on `engine`, and what to remove afterwards.
    private func database(_ engine: DomainEngine) throws -> (any SQLDatabase, cleanup: () -> Void) {
        switch engine {
        case .sqlite:
            let directory = NSTemporaryDirectory() + "gatehouse-group-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let database = try Database(path: directory + "/db.sqlite")
            try database.write { try $0.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
            return (SQLiteEngine(database), { try? FileManager.default.removeItem(atPath: directory) })
        case .postgresql:
            let throwaway = try ThrowawayPostgres.database()
            var configuration = PostgresDatabase.Configuration(url: throwaway.url)
            configuration.poolSize = 4
            let database = try PostgresDatabase(configuration)
            _ = try database.write { try $0.execute("CREATE TABLE t (x BIGINT PRIMARY KEY)") }
            return (database, { _ = throwaway })
        }
    }

    @Test(arguments: DomainEngine.allCases)
    func concurrentChangesCommitTogetherAndFailAlone(_ engine: DomainEngine) throws {
        let (database, cleanup) = try database(engine)
        defer { cleanup() }
        let committer = GroupCommit(database: database, maxBatch: 8)

        let results = concurrently(48) { i -> String in
            do {
                // 40 and 41 insert the same row: one of them conflicts. 7 throws after writing: its row is undone.
                let value = try committer.write { db -> Int in
                    try db.execute("INSERT INTO t (x) VALUES (?)", [.integer(Int64(i == 41 ? 40 : i))])
                    if i == 7 { throw Refused() }
                    return i * 10
                }
                return "ok \(value)"
            } catch is Refused {
                return "refused"
            } catch {
                return "conflict"
            }
        }
        #expect(results[7] == "refused")
        #expect([results[40], results[41]].filter { $0 == "conflict" }.count == 1)
        for i in 0..<40 where i != 7 { #expect(results[i] == "ok \(i * 10)") }
        let rows = try database.read { db in try db.query("SELECT x FROM t ORDER BY x").map { try $0.int("x") } }
        #expect(rows == Array(0..<7) + Array(8...40) + Array(42..<48))
    }

    /// Small batches under several leaders (PostgreSQL runs half its pool's transactions at once): every caller gets
    /// its own result, each change runs in exactly one committed transaction, and no caller is left waiting.
    @Test(arguments: DomainEngine.allCases)
    func manyCallersOverSeveralLeadersEachCommitOnce(_ engine: DomainEngine) throws {
        let (database, cleanup) = try database(engine)
        defer { cleanup() }
        let committer = GroupCommit(database: database, maxBatch: 3)
        #expect(committer.maxLeaders == (engine == .sqlite ? 1 : 2))
        let results = concurrently(64) { i -> Int in
            (try? committer.write { db -> Int in
                try db.execute("INSERT INTO t (x) VALUES (?)", [.integer(Int64(i))])
                return i + 1_000
            }) ?? -1
        }
        #expect(results == (0..<64).map { $0 + 1_000 })
        let rows = try database.read { db in try db.query("SELECT x FROM t ORDER BY x").map { try $0.int("x") } }
        #expect(rows == Array(0..<64))
    }
}
