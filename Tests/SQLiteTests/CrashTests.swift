import Foundation
import SQLite
import Testing

/// A child process commits rows and is killed with SIGKILL; every commit it reported must survive.
@Suite struct CrashTests {
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
        let process = Process()
        process.executableURL = try Self.crashWriter()
        process.arguments = [path, synchronous.rawValue, "1000000"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()

        var reported: [Int64] = []
        var pending: [UInt8] = []
        func consume(_ data: Data) {
            pending.append(contentsOf: data)
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                if let id = Int64(String(decoding: pending[..<newline], as: UTF8.self)) { reported.append(id) }
                pending.removeSubrange(...newline)
            }
        }
        let reader = output.fileHandleForReading
        while reported.count < 300 {
            let data = reader.availableData
            if data.isEmpty { break }  // the child ended early: the expectations below fail
            consume(data)
        }
        kill(process.processIdentifier, SIGKILL)
        while case let data = reader.availableData, !data.isEmpty {
            consume(data)  // ids already in the pipe were committed too
        }
        process.waitUntilExit()

        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGKILL)
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
