import Foundation
import SQLite
import Storage
import Testing
import TestSupport

@Suite struct CheckpointTests {
    /// The writer leaves its commits in the WAL (below the backstop it checkpoints nothing itself); `checkpoint`
    /// copies them into the database file, where a connection that reads the file alone finds them.
    @Test func checkpointCopiesTheCommittedWALIntoTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("wal.sqlite")
        let database = try Database(path: path)
        try database.write { connection in
            try connection.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)")
            for id in 1...500 {
                try connection.execute("INSERT INTO item VALUES (?, zeroblob(1024))", [.integer(Int64(id))])
            }
        }
        let walBefore = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        let fileBefore = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(walBefore > 500 * 1024)
        #expect(fileBefore < 500 * 1024)

        let (walPages, copiedPages) = try database.checkpoint()
        #expect(walPages > 100)
        #expect(copiedPages == walPages)
        let fileAfter = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(fileAfter > 500 * 1024)

        // The database file alone, copied without its WAL, now holds every row.
        let alone = directory.file("alone.sqlite")
        try FileManager.default.copyItem(atPath: path, toPath: alone)
        let copy = try Database(path: alone)
        #expect(try copy.read { try $0.queryOne("SELECT count(*) FROM item")?[0].int } == 500)
    }
}
