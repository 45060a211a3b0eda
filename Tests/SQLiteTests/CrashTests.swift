import Foundation
import SQLite
import Testing

/// A child process commits rows and is killed with SIGKILL; every commit it reported must survive.
@Suite(.serialized) struct CrashTests {
    /// SQLiteCrashWriter, built beside the test bundle because SQLiteTests depends on it.
    static func crashWriter() throws -> URL {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let url = executable.deletingLastPathComponent().appendingPathComponent("SQLiteCrashWriter")
        try #require(FileManager.default.isExecutableFile(atPath: url.path), "build SQLiteCrashWriter first: \(url.path)")
        return url
    }

    @Test(arguments: DatabaseConfiguration.Synchronous.allCases)
    func committedWritesSurviveSIGKILL(_ synchronous: DatabaseConfiguration.Synchronous) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("crash.sqlite")
        let child = try ChildProcess(try Self.crashWriter().path, [path, synchronous.rawValue, "1000000"])
        var reported: [Int64] = []
        var pending: [UInt8] = []
        func consume(_ bytes: [UInt8]) {
            pending.append(contentsOf: bytes)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if let id = Int64(String(decoding: pending[..<newline], as: UTF8.self)) { reported.append(id) }
                pending.removeSubrange(...newline)
            }
        }
        while reported.count < 300 {
            let bytes = child.read()
            if bytes.isEmpty { break }  // the child ended early: the expectations below fail
            consume(bytes)
        }
        child.kill(SIGKILL)
        while case let bytes = child.read(), !bytes.isEmpty {
            consume(bytes)  // ids already in the pipe were committed too
        }
        #expect(child.waitForTerminatingSignal() == SIGKILL)
        try #require(reported.count >= 300)
        #expect(reported == Array(1...Int64(reported.count)))

        let database = try Database(path: path)
        let (integrity, count, tally) = try database.read { connection in
            (
                try connection.queryOne("PRAGMA integrity_check")?[0],
                try connection.queryOne("SELECT count(*) FROM item")?[0].int64 ?? -1,
                try connection.queryOne("SELECT rows FROM tally")?[0].int64 ?? -1
            )
        }
        #expect(integrity == .text("ok"))
        #expect(count >= Int64(reported.count))  // every reported commit is there (the kill may land after one more)
        #expect(count <= Int64(reported.count) + 1)
        #expect(tally == count)  // no transaction survived half-applied
        let missing = try database.read { connection in
            try reported.filter { try connection.queryOne("SELECT 1 FROM item WHERE id = ?", [.integer($0)]) == nil }
        }
        #expect(missing.isEmpty)
    }
}
