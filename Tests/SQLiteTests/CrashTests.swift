import ChildProcess
import Foundation
import SQLite
import Storage
import Testing
import TestSupport

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
        let child = try ChildProcess(try Self.crashWriter().path, [path, synchronous.rawValue, "1000000"],
                                     standardErrorPath: directory.file("writer.log"))
        var reported: [Int64] = []
        while reported.count < 300, let line = child.readLine(timeout: 60) {  // nil: the child ended early or hung
            if let id = Int64(line) { reported.append(id) }
        }
        child.kill(SIGKILL)
        let (code, rest) = child.finish(timeout: 60)
        reported += rest.compactMap { Int64($0) }  // ids already in the pipe were committed too (one write(2) a line: none is cut)
        #expect(code == 128 + SIGKILL, "the writer's log: \(child.standardError)")
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
