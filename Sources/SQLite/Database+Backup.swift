import CSQLite

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Online backup. See https://sqlite.org/backup.html
extension Database {
    /// Copies the database, as one consistent snapshot, to a new file at `destination`, while writes go on.
    ///
    /// The copy is made from a reader connection inside one read transaction, begun before anything is copied: the
    /// snapshot is the database as it was then, and in WAL mode the writer is not blocked by it
    /// (https://sqlite.org/c3ref/backup_finish.html). `whileHoldingSnapshot` runs once the snapshot is taken and
    /// before its pages are copied (tests write there, to show that writes go on and stay out of the copy). The copy
    /// is written to `destination.tmp-<pid>` and renamed into place, so a failed backup never leaves a half-written
    /// file at `destination`.
    /// - Throws: `DatabaseError` when `destination` (or its `-wal`) already exists, or on any I/O failure; what
    ///   `whileHoldingSnapshot` throws.
    public func backup(to destination: String, whileHoldingSnapshot: () throws -> Void = {}) throws {
        for existing in [destination, destination + "-wal"] where access(existing, F_OK) == 0 {
            throw DatabaseError(
                code: SQLITE_CANTOPEN, message: "backup destination \(existing) already exists; choose a new file name")
        }
        let temporary = "\(destination).tmp-\(getpid())"
        do {
            try withReader { source in
                // The read transaction that fixes the snapshot: it starts with the first read, here.
                _ = try source.execute("BEGIN")
                defer { _ = try? source.execute("COMMIT") }
                _ = try source.queryOne("SELECT count(*) FROM sqlite_schema")
                try whileHoldingSnapshot()
                let copy = try Connection(
                    path: temporary, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                    busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
                try copyPages(from: source, to: copy)
            }
            guard rename(temporary, destination) == 0 else {
                let reason = String(cString: strerror(errno))
                throw DatabaseError(code: SQLITE_IOERR, message: "cannot move the backup to \(destination): \(reason)")
            }
        } catch {
            for leftover in ["", "-journal", "-wal", "-shm"] {
                unlink(temporary + leftover)
            }
            throw error
        }
    }

    /// Copies every page of `source` into `copy`, retrying while the source is busy up to the busy timeout.
    /// See https://sqlite.org/c3ref/backup_finish.html (backup_init, backup_step, backup_finish).
    private func copyPages(from source: Connection, to copy: Connection) throws {
        guard let backup = sqlite3_backup_init(copy.handle, "main", source.handle, "main") else {
            throw copy.error(sqlite3_errcode(copy.handle), sql: nil)
        }
        var waited: Int32 = 0
        var rc: Int32
        repeat {
            rc = sqlite3_backup_step(backup, -1)
            if rc == SQLITE_BUSY || rc == SQLITE_LOCKED {
                guard waited < configuration.busyTimeoutMilliseconds else { break }
                waited += sqlite3_sleep(10)
            }
        } while rc == SQLITE_OK || rc == SQLITE_BUSY || rc == SQLITE_LOCKED
        let finish = sqlite3_backup_finish(backup)
        guard rc == SQLITE_DONE else {
            throw DatabaseError(code: rc, message: "backup failed: \(String(cString: sqlite3_errstr(rc)))")
        }
        guard finish == SQLITE_OK else {
            throw copy.error(finish, sql: nil)
        }
    }
}
