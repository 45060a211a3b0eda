import Foundation
import SQLite
import Storage
import Synchronization
import Testing
import TestSupport

@Suite struct BackupTests {
    @Test func backupIsAConsistentSnapshotWhileWritesContinue() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("live.sqlite"))
        try database.write { connection in
            try connection.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, pair INTEGER NOT NULL, payload BLOB NOT NULL)")
            for id in 1...4000 {
                try connection.execute(
                    "INSERT INTO item VALUES (?, ?, zeroblob(1024))", [.integer(Int64(id)), .integer(Int64((id + 1) / 2))])
            }
        }

        // A writer thread adds rows two per transaction until told to stop.
        let stop = Atomic<Bool>(false)
        let committedBeforeBackup = DispatchSemaphore(value: 0)
        let writesDuring = Mutex<Int>(0)
        let writerDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var next: Int64 = 4001
            while !stop.load(ordering: .relaxed) {
                do {
                    try database.write { connection in
                        for id in [next, next + 1] {
                            try connection.execute(
                                "INSERT INTO item VALUES (?, ?, zeroblob(1024))", [.integer(id), .integer((id + 1) / 2)])
                        }
                    }
                } catch {
                    break
                }
                next += 2
                if next == 4003 { committedBeforeBackup.signal() }
                writesDuring.withLock { $0 += 1 }
            }
            writerDone.signal()
        }
        committedBeforeBackup.wait()
        let startedAt = writesDuring.withLock { $0 }
        let backupPath = directory.file("backup.sqlite")
        // Once the backup holds its snapshot, a write of this thread commits (the writer is not blocked by it) and
        // stays out of the copy.
        var committedDuring = false
        try database.backup(to: backupPath) {
            committedDuring = try database.write { connection in
                try connection.execute("INSERT INTO item VALUES (?, ?, zeroblob(16))", [.integer(-1), .integer(-1)])
            } == 1
        }
        stop.store(true, ordering: .relaxed)
        writerDone.wait()

        let copy = try Database(path: backupPath)
        let check = try copy.read { connection in
            (
                integrity: try connection.queryOne("PRAGMA integrity_check")?[0],
                count: try connection.queryOne("SELECT count(*) FROM item")?[0].int64 ?? -1,
                max: try connection.queryOne("SELECT max(id) FROM item")?[0].int64 ?? -1,
                halfPairs: try connection.queryOne("SELECT count(*) FROM (SELECT pair FROM item WHERE id > 0 GROUP BY pair HAVING count(*) <> 2)")?[0],
                during: try connection.queryOne("SELECT count(*) FROM item WHERE id = -1")?[0].int64 ?? -1
            )
        }
        let liveCount = try database.read { try $0.queryOne("SELECT count(*) FROM item WHERE id > 0")?[0].int64 ?? -1 }
        #expect(check.integrity == .text("ok"))
        #expect(committedDuring, "a write could not commit while the backup held its snapshot")
        #expect(check.during == 0, "a write committed after the snapshot was taken is in the copy")
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM item WHERE id = -1")?[0].int64 } == 1)
        #expect(check.count == check.max)  // ids 1…n with no gap
        #expect(check.halfPairs == .integer(0))  // no transaction copied halfway
        #expect(check.count >= 4000 + 2 * Int64(startedAt))
        #expect(check.count <= liveCount)
        #expect(FileManager.default.fileExists(atPath: backupPath + ".tmp-\(ProcessInfo.processInfo.processIdentifier)") == false)
    }

    @Test func backupRefusesToOverwriteAFile() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("live.sqlite"))
        try directory.write("taken.sqlite", "precious")
        let error = try #require(throws: DatabaseError.self) { try database.backup(to: directory.file("taken.sqlite")) }
        #expect(error.message.contains("already exists"))
        #expect(try String(contentsOfFile: directory.file("taken.sqlite"), encoding: .utf8) == "precious")
    }
}
