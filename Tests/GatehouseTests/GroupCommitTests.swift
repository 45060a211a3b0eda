import Foundation
@testable import Gatehouse
import SQLite
import Storage
import TestThreads
import Testing

/// Group commit: concurrent changes share transactions, each caller learns its own result, and a change that fails
/// undoes only itself.
@Suite("Group commit")
struct GroupCommitTests {
    struct Refused: Error {}

    @Test func concurrentChangesCommitTogetherAndFailAlone() throws {
        let directory = NSTemporaryDirectory() + "gatehouse-group-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = try Database(path: directory + "/db.sqlite")
        try database.write { try $0.execute("CREATE TABLE t (x INTEGER PRIMARY KEY)") }
        let committer = GroupCommit(database: SQLiteEngine(database), maxBatch: 8)

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
}
