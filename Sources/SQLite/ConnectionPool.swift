import Locks

/// At most `capacity` connections, opened on demand and reused; a caller waits when all are in use.
final class ConnectionPool: @unchecked Sendable {
    // @unchecked Sendable: `idle` and `opened` are only touched while holding `lock`, and each Connection is
    // used by exactly one thread between `checkOut` and `checkIn` (it is in `idle` only when nobody uses it).
    private let lock = ConditionLock()
    private var idle: [Connection] = []
    private var opened = 0
    private let capacity: Int
    private let open: @Sendable () throws -> Connection

    init(capacity: Int, open: @escaping @Sendable () throws -> Connection) {
        self.capacity = max(1, capacity)
        self.open = open
    }

    /// Runs `body` with a connection that no other thread uses meanwhile.
    /// - Throws: `DatabaseError` when a new connection cannot be opened, or what `body` throws.
    func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        let connection = try checkOut()
        defer { checkIn(connection) }
        return try body(connection)
    }

    private func checkOut() throws -> Connection {
        let reused: Connection? = lock.withLock {
            while idle.isEmpty && opened >= capacity {
                lock.wait()
            }
            if let connection = idle.popLast() {
                return connection
            }
            opened += 1
            return nil
        }
        if let reused { return reused }
        do {
            return try open()
        } catch {
            lock.withLock {
                opened -= 1
                lock.signal()
            }
            throw error
        }
    }

    private func checkIn(_ connection: Connection) {
        lock.withLock {
            idle.append(connection)
            lock.signal()
        }
    }
}
