import Locks
import Storage
import Synchronization

/// PostgreSQL behind the storage seam (docs/architecture.md "Storage: one seam, two engines"): a pool of libpq connections, each
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
        /// How long bytes sent may stay unacknowledged before the connection is given up as lost (`tcp_user_timeout`):
        /// keepalives cover an idle connection only, this one a peer that vanished mid-statement.
        public var tcpUserTimeoutMilliseconds = 10_000
        /// How long a caller waits for a pooled connection before the database counts as unavailable.
        public var checkoutTimeoutMilliseconds = 10_000
        /// Whether a commit waits for the server's WAL flush (`synchronous_commit = on`, whatever the server's
        /// default): a spend acknowledged survives a crash of the server. `--durability normal` turns it off.
        public var synchronousCommit = true
        /// Whether statements are prepared once per connection (the default) or sent whole each time, as a pooler in
        /// transaction mode needs (pgBouncer before 1.21: `--database-prepared-statements off`).
        public var preparedStatements = true
        /// How many times a transaction that met a serialization failure or a deadlock is run again.
        public var retries = 3

        public init(url: String) {
            self.url = url
        }

        /// libpq keywords set before the URL (which may override them): timeouts and TCP keepalives, and the
        /// application name the server's views show. No `options`: a pooler in transaction mode refuses them, and
        /// what Gatehouse relies on is set in each transaction instead (``begin(readOnly:)``).
        var defaults: [(String, String)] {
            [("connect_timeout", String(connectTimeoutSeconds)), ("keepalives", "1"), ("keepalives_idle", "30"),
             ("keepalives_interval", "10"), ("keepalives_count", "3"), ("tcp_user_timeout", String(tcpUserTimeoutMilliseconds)),
             ("application_name", "gatehouse")]
        }

        /// The script that opens a transaction: the statement timeout and, for writes, the commit's durability set
        /// for this transaction only (`SET LOCAL`), so neither a URL's `options` nor a session setting left by
        /// another client of a pooler can change them, and none leaks to another client.
        func begin(readOnly: Bool) -> String {
            readOnly
                ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL statement_timeout = \(statementTimeoutMilliseconds)"
                : "BEGIN; SET LOCAL statement_timeout = \(statementTimeoutMilliseconds); SET LOCAL synchronous_commit = \(synchronousCommit ? "on" : "off")"
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
        let url = configuration.url, defaults = configuration.defaults, prepares = configuration.preparedStatements
        pool = Pool(capacity: configuration.poolSize, open: { try PostgresConnection(url: url, defaults: defaults, preparedStatements: prepares) },
                    isBroken: { !$0.isIdle },
                    checkoutTimeout: (UInt64(configuration.checkoutTimeoutMilliseconds) * 1_000_000,
                                      { StorageError(.unavailable, "no PostgreSQL connection came free within \(configuration.checkoutTimeoutMilliseconds) ms") }))
        try pool.withResource { _ in }
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try transaction(configuration.begin(readOnly: true), body)
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        pending.add(1, ordering: .relaxed)
        defer { pending.subtract(1, ordering: .relaxed) }
        var attempt = 0
        while true {
            do {
                return try transaction(configuration.begin(readOnly: false), body)
            } catch let error as PostgresError where error.isRetryable && attempt < configuration.retries {
                attempt += 1
            }
        }
    }

    /// Runs `body` between `begin` and `COMMIT` on a pooled connection; rolls back when it throws. A connection that
    /// is not idle when handed back (a transaction left open by a failed rollback) is dropped, not lent again. The thread mostly
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
                try connection.commit()
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

    /// PostgreSQL keeps itself (autovacuum).
    public var needsMaintenance: Bool { false }

    public func maintain() throws -> Double { 60 }
}
