// SQLiteCrashWriter: the child process of SQLiteTests' crash test.
// Usage: SQLiteCrashWriter DATABASE normal|full MAX_ROWS
// Commits rows 1, 2, 3… one `write` each (a row plus a tally update, so a torn transaction would show) and
// prints each id on stdout with write(2) only after its commit returned. The test kills it with SIGKILL.
import SQLite
import Storage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes all of `text` to file descriptor `descriptor`; false when the reader has gone.
func emit(_ text: String, to descriptor: Int32) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written < 0 && errno == EINTR { continue }
        guard written > 0 else { return false }
        bytes = bytes.dropFirst(written)
    }
    return true
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let synchronous = DatabaseConfiguration.Synchronous(rawValue: arguments[2].uppercased()),
    let maxRows = Int64(arguments[3])
else {
    _ = emit("usage: SQLiteCrashWriter DATABASE normal|full MAX_ROWS\n", to: 2)
    exit(2)
}

do {
    var configuration = DatabaseConfiguration()
    configuration.synchronous = synchronous
    let database = try Database(path: arguments[1], configuration: configuration)
    try database.write { connection in
        try connection.executeScript(
            """
            CREATE TABLE IF NOT EXISTS item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
            CREATE TABLE IF NOT EXISTS tally (only INTEGER PRIMARY KEY CHECK (only = 1), rows INTEGER NOT NULL);
            INSERT OR IGNORE INTO tally VALUES (1, 0);
            """)
    }
    let payload = (0..<512).map { UInt8(truncatingIfNeeded: $0 &* 31) }
    for id in 1...max(1, maxRows) {
        try database.write { connection in
            try connection.execute("INSERT INTO item (id, payload) VALUES (?, ?)", [.integer(id), .blob(payload)])
            try connection.execute("UPDATE tally SET rows = rows + 1 WHERE only = 1")
        }
        guard emit("\(id)\n", to: 1) else { exit(3) }
    }
} catch {
    _ = emit("SQLiteCrashWriter: \(error)\n", to: 2)
    exit(1)
}
