import CSQLite
import Locks
import Storage
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A SQLite database file shared by many threads: one writer connection that serializes writes, and a small
/// pool of read-only connections that read concurrently from consistent snapshots (WAL mode).
///
/// See https://sqlite.org/wal.html (readers do not block the writer, nor the writer readers) and
/// https://sqlite.org/threadsafe.html (each connection is opened `SQLITE_OPEN_NOMUTEX` and used by one thread at
/// a time). A file path is required: `:memory:` cannot be shared between connections and is refused.
public final class Database: @unchecked Sendable {
    // @unchecked Sendable: `writer` (a non-Sendable Connection) is only used while holding `writerLock`, and
    // `checkpointer` while holding `checkpointLock`;
    // reader connections are only used between check-out and check-in of `readers`; everything else is
    // immutable or atomic.

    /// The database file's path, as given.
    public let path: String
    /// The configuration the connections were opened with.
    public let configuration: DatabaseConfiguration

    private let writer: Connection
    private let writerLock = FairLock()
    /// The pthread currently inside `write`, or 0: a nested `write` on the same thread would deadlock.
    private let writerThread = Atomic<UInt>(0)
    private let pendingWriteCount = Atomic<Int>(0)
    private let readers: Pool<Connection>
    /// The connection `checkpoint` uses (opened on first use), only touched while holding `checkpointLock`.
    private var checkpointer: Connection?
    private let checkpointLock = ConditionLock()

    /// Opens (creating if needed) the database at `path`, switches it to WAL, and turns on foreign keys.
    /// Reader connections are opened on first use.
    /// - Throws: `DatabaseError` when the file cannot be opened or put in WAL mode.
    public init(path: String, configuration: DatabaseConfiguration = .init()) throws {
        self.path = path
        self.configuration = configuration
        let timeout = configuration.busyTimeoutMilliseconds
        let writer = try Connection(
            path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
            busyTimeoutMilliseconds: timeout)
        // https://sqlite.org/pragma.html#pragma_journal_mode: the mode is persistent and answers the mode in force.
        let mode = try writer.queryOne("PRAGMA journal_mode = WAL")?.value(at: 0).string?.lowercased()
        guard mode == "wal" else {
            throw DatabaseError(
                code: SQLITE_CANTOPEN,
                message: "cannot use WAL journal mode for \(path) (got \(mode ?? "nothing")); use a file on a local disk")
        }
        // https://sqlite.org/foreignkeys.html#fk_enable: off by default, per connection.
        try writer.execute("PRAGMA foreign_keys = ON")
        try writer.execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
        try writer.execute("PRAGMA wal_autocheckpoint = \(max(0, configuration.walAutocheckpointPages))")
        self.writer = writer
        self.readers = Pool(capacity: configuration.readers, open: {
            let reader = try Connection(
                path: path, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, busyTimeoutMilliseconds: timeout)
            // https://sqlite.org/pragma.html#pragma_query_only: a second guard besides the read-only open.
            try reader.execute("PRAGMA query_only = 1")
            return reader
        })
    }

    /// Copies the WAL's committed pages into the database file (`PRAGMA wal_checkpoint(PASSIVE)`) on a connection of
    /// its own, without waiting for the writer or readers, so that commits do not pay for it; returns the WAL's size
    /// and how much of it is now in the database file, in pages. A server calls it every fraction of a second.
    /// - Throws: `DatabaseError`.
    @discardableResult
    public func checkpoint() throws -> (walPages: Int, copiedPages: Int) {
        try checkpointLock.withLock {
            let connection = try checkpointer ?? Connection(
                path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                busyTimeoutMilliseconds: configuration.busyTimeoutMilliseconds)
            checkpointer = connection
            // https://sqlite.org/pragma.html#pragma_wal_checkpoint: one row (busy, WAL pages, pages checkpointed).
            guard let row = try connection.queryOne("PRAGMA wal_checkpoint(PASSIVE)"),
                  let walPages = try row.value(at: 1).int, let copiedPages = try row.value(at: 2).int
            else { throw DatabaseError.misuse("PRAGMA wal_checkpoint answered no row of three integers") }
            return (walPages, copiedPages)
        }
    }

    /// Runs `body` on a reader connection inside one read transaction, so every statement in it sees the same
    /// snapshot, whatever commits meanwhile. The snapshot starts at the first statement. Waits for a free
    /// reader when all are busy (so do not nest `read` deeper than `configuration.readers`).
    /// - Throws: `DatabaseError` (writing through a reader fails with `SQLITE_READONLY`), or what `body` throws.
    public func read<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.withResource { reader in
            try reader.transaction("BEGIN DEFERRED", body)
        }
    }

    /// Runs `body` on the single writer connection inside `BEGIN IMMEDIATE` … `COMMIT`, after every earlier
    /// write has finished. Commits when `body` returns, rolls back when it throws. Use `Connection.savepoint` for
    /// nested transactions: calling `write` inside `write` throws instead of deadlocking.
    /// See https://sqlite.org/lang_transaction.html (IMMEDIATE takes the write lock at once, so a busy database
    /// fails at BEGIN, not halfway through).
    /// - Throws: `DatabaseError`, or what `body` throws.
    @discardableResult
    public func write<T>(_ body: (Connection) throws -> T) throws -> T {
        let thread = Database.currentThread()
        guard writerThread.load(ordering: .acquiring) != thread else {
            throw DatabaseError.misuse("write called inside write on the same thread; use Connection.savepoint")
        }
        pendingWriteCount.add(1, ordering: .relaxed)
        defer { pendingWriteCount.subtract(1, ordering: .relaxed) }
        return try writerLock.withLock {
            writerThread.store(thread, ordering: .releasing)
            defer { writerThread.store(0, ordering: .releasing) }
            return try writer.transaction("BEGIN IMMEDIATE", body)
        }
    }

    /// Writes waiting for the writer plus the one running, for metrics.
    public var pendingWrites: Int {
        pendingWriteCount.load(ordering: .relaxed)
    }

    /// An identifier of the calling thread, never 0.
    private static func currentThread() -> UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Runs `body` with a reader connection outside any transaction (for the backup).
    func withReader<T>(_ body: (Connection) throws -> T) throws -> T {
        try readers.withResource(body)
    }
}
