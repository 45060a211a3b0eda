import Foundation
import SQLite
import Storage
import Synchronization
import Testing
import TestSupport

@Suite struct ConcurrencyTests {
    /// Runs `body` on a new thread (not the test's cooperative pool, since the threads block on each other).
    static func spawn(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            body()
            done.signal()
        }
        return done
    }

    @Test func readersKeepTheirSnapshotWhileAWriterCommits() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("snapshot.sqlite"))
        try database.write { try $0.executeScript("CREATE TABLE t (v); INSERT INTO t VALUES (1), (2), (3);") }

        let snapshotTaken = DispatchSemaphore(value: 0)
        let committed = DispatchSemaphore(value: 0)
        let counts = Mutex<[[Int64]]>([])
        let readers = (0..<2).map { _ in
            Self.spawn {
                let seen = (try? database.read { connection -> [Int64] in
                    let before = try connection.queryOne("SELECT count(*) FROM t")?[0].int64 ?? -1
                    snapshotTaken.signal()
                    committed.wait()
                    let after = try connection.queryOne("SELECT count(*) FROM t")?[0].int64 ?? -1
                    let sum = try connection.queryOne("SELECT sum(v) FROM t")?[0].int64 ?? -1
                    return [before, after, sum]
                }) ?? [-1]
                counts.withLock { $0.append(seen) }
            }
        }
        snapshotTaken.wait()
        snapshotTaken.wait()
        // Both readers are inside their read transactions now; the writer is not blocked by them (WAL).
        try database.write { try $0.execute("INSERT INTO t VALUES (?)", [4]) }
        committed.signal()
        committed.signal()
        readers.forEach { $0.wait() }

        #expect(counts.withLock { $0 } == [[3, 3, 6], [3, 3, 6]])
        #expect(try database.read { try $0.queryOne("SELECT count(*) FROM t")?[0] } == .integer(4))
    }

    @Test func concurrentWritesAreSerializedAndCounted() throws {
        let directory = try TemporaryDirectory()
        let database = try Database(path: directory.file("writers.sqlite"))
        try database.write { try $0.execute("CREATE TABLE counter (n INTEGER NOT NULL)") }
        try database.write { try $0.execute("INSERT INTO counter VALUES (0)") }

        // Hold the writer, start a second write, and see both counted as pending.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Self.spawn {
            _ = try? database.write { connection in
                holding.signal()
                release.wait()
                try connection.execute("UPDATE counter SET n = n + 1")
            }
        }
        holding.wait()
        let waiter = Self.spawn { _ = try? database.write { try $0.execute("UPDATE counter SET n = n + 1") } }
        let deadline = ContinuousClock.now + .seconds(10)
        while database.pendingWrites < 2 && ContinuousClock.now < deadline {
            sched_yield()
        }
        #expect(database.pendingWrites == 2)
        release.signal()
        holder.wait()
        waiter.wait()
        #expect(database.pendingWrites == 0)

        // Read-modify-write from many threads loses no update, because writes are serialized.
        let workers = (0..<4).map { _ in
            Self.spawn {
                for _ in 0..<50 {
                    _ = try? database.write { connection in
                        let n = try connection.queryOne("SELECT n FROM counter")?[0].int64 ?? 0
                        try connection.execute("UPDATE counter SET n = ?", [.integer(n + 1)])
                    }
                }
            }
        }
        workers.forEach { $0.wait() }
        #expect(try database.read { try $0.queryOne("SELECT n FROM counter")?[0] } == .integer(202))
    }

    @Test func moreReadsThanReadersWaitForAFreeOne() throws {
        let directory = try TemporaryDirectory()
        var configuration = DatabaseConfiguration()
        configuration.readers = 2
        let database = try Database(path: directory.file("pool.sqlite"), configuration: configuration)
        try database.write { try $0.executeScript("CREATE TABLE t (v); INSERT INTO t VALUES (1);") }
        let total = Mutex<Int64>(0)
        let threads = (0..<6).map { _ in
            Self.spawn {
                for _ in 0..<25 {
                    let v = (try? database.read { try $0.queryOne("SELECT v FROM t")?[0].int64 }) ?? nil
                    total.withLock { $0 += v ?? 0 }
                }
            }
        }
        threads.forEach { $0.wait() }
        #expect(total.withLock { $0 } == 150)
    }
}
