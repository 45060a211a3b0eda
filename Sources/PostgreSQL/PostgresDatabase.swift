import Locks
import Storage
import Synchronization

/// PostgreSQL behind the storage seam (DESIGN.md "Storage: one seam, two engines"): a pool of libpq connections, each
/// lent to one thread at a time, with reads in one snapshot and writes in `READ COMMITTED` transactions whose
/// single-use and monotonic changes are conditional statements. A lost connection is replaced on its next use; a
/// transaction that failed on a serialization failure or a deadlock runs again, a bounded number of times.
public final class PostgresDatabase: SQLDatabase {
    /// How the pool connects and how long a statement may run.
    public struct Configuration: Sendable {
        /// The `postgres://` (or `postgresql://`) URL or `key=value` string, handed to libpq whole.
        public var url: String
        /// The most connections open at once.
        public var poolSize = 8
        /// How long one statement may run before the server cancels it (then the caller gets `unavailable`).
        public var statementTimeoutMilliseconds = 5_000
        /// How long connecting may take, unless the URL says otherwise.
        public var connectTimeoutSeconds = 5
        /// How many times a transaction that met a serialization failure or a deadlock is run again.
        public var retries = 3

        public init(url: String) {
            self.url = url
        }

        /// libpq keywords set before the URL (which may override them): timeouts, TCP keepalives, the statement
        /// timeout, notices kept off standard error, and the application name the server's views show.
        var defaults: [(String, String)] {
            [("connect_timeout", String(connectTimeoutSeconds)), ("keepalives", "1"), ("keepalives_idle", "30"),
             ("keepalives_interval", "10"), ("keepalives_count", "3"), ("application_name", "gatehouse"),
             ("options", "-c statement_timeout=\(statementTimeoutMilliseconds) -c client_min_messages=warning")]
        }
    }

    public let configuration: Configuration
    let pool: Pool<PostgresConnection>
    private let pending = Atomic<Int>(0)
    /// The connection that listens for other servers' wake-ups (``awaitChange(channel:milliseconds:)``), opened on
    /// first use and again after it is lost; only the waiting thread touches it.
    private let listener = Mutex<PostgresConnection?>(nil)

    /// A database over `configuration.url`; one connection is opened now, so a wrong address or password is an
    /// error at once.
    /// - Throws: ``PostgresError`` when it cannot connect.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        let url = configuration.url, defaults = configuration.defaults
        pool = Pool(capacity: configuration.poolSize, open: { try PostgresConnection(url: url, defaults: defaults) },
                    isBroken: { $0.isBroken })
        try pool.withResource { _ in }
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        pending.add(1, ordering: .relaxed)
        defer { pending.subtract(1, ordering: .relaxed) }
        var attempt = 0
        while true {
            do {
                return try transaction("BEGIN", body)
            } catch let error as PostgresError where error.isRetryable && attempt < configuration.retries {
                attempt += 1
            }
        }
    }

    /// Runs `body` between `begin` and `COMMIT` on a pooled connection; rolls back when it throws. The thread mostly
    /// waits for the server meanwhile, and says so (``BlockingRegion``), so that a worker pool runs another worker.
    private func transaction<T>(_ begin: String, _ body: (any SQLConnection) throws -> T) throws -> T {
        try BlockingRegion.run {
            try pool.withResource { connection in
                try connection.script(begin)
                let value: T
                do {
                    value = try body(connection)
                } catch {
                    try? connection.script("ROLLBACK")
                    throw error
                }
                try connection.script("COMMIT")
                return value
            }
        }
    }

    public func failure(of error: any Error) -> StorageError? {
        if let error = error as? PostgresError { return error.storageError }
        return error as? StorageError
    }

    public var pendingWrites: Int { pending.load(ordering: .relaxed) }

    /// Any number of servers share a PostgreSQL database.
    public var isShared: Bool { true }

    public var statementsAreRoundTrips: Bool { true }

    /// Half the pool, so that reads keep connections while writes wait on the server.
    public var concurrentWriteTransactions: Int { max(1, configuration.poolSize / 2) }

    public func awaitChange(channel: String, milliseconds: Int) throws -> Bool {
        try listener.withLock { listening in
            let connection: PostgresConnection
            if let open = listening {
                connection = open
            } else {
                connection = try PostgresConnection(url: configuration.url, defaults: configuration.defaults)
                try connection.script("LISTEN \(channel)")
                listening = connection
            }
            do {
                return try connection.awaitNotification(milliseconds: milliseconds)
            } catch {
                listening = nil
                throw error
            }
        }
    }

    public func backup(to path: String) throws {
        throw StorageError(.other, "gatehouse backup copies SQLite files; back up PostgreSQL with pg_dump (or your provider's snapshots)")
    }

    public func startMaintenance(failed: @escaping @Sendable (String?) -> Void) {}

    public func stopMaintenance() {}
}
