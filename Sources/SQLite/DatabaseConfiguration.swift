import Locks

/// How a `Database` opens its connections. All fields have production defaults.
public struct DatabaseConfiguration: Sendable {
    /// How hard SQLite syncs to disk on commit. See https://sqlite.org/pragma.html#pragma_synchronous
    public enum Synchronous: String, Sendable, Equatable, CaseIterable {
        /// In WAL mode a commit survives a process crash, but the last commits may be lost on power loss.
        case normal = "NORMAL"
        /// Every commit is synced to disk before it returns: durable across power loss, slower.
        case full = "FULL"
    }

    /// The most reader connections open at once (at least 1); a `read` waits when all are busy.
    public var readers: Int = 4
    /// How long a statement waits for a lock held by another connection or process before failing with
    /// `SQLITE_BUSY`. See https://sqlite.org/c3ref/busy_timeout.html
    public var busyTimeout: Duration = .seconds(5)
    /// The writer's `PRAGMA synchronous`.
    public var synchronous: Synchronous = .full

    /// How many WAL pages make the writer checkpoint at the end of a commit (`PRAGMA wal_autocheckpoint`). A
    /// checkpoint in a commit holds every later write back; a server runs `Database.checkpoint()` in the background
    /// instead, and this is the backstop should it fall behind. See https://sqlite.org/wal.html#ckpt
    public var walAutocheckpointPages: Int = 10_000

    /// The defaults: 4 readers, 5 s busy timeout, `synchronous=FULL`, the writer's own checkpoints at 10,000 WAL
    /// pages.
    public init() {}

    /// `busyTimeout` in whole milliseconds, clamped to what `sqlite3_busy_timeout` takes.
    var busyTimeoutMilliseconds: Int32 {
        Int32(clamping: busyTimeout.milliseconds())
    }
}
