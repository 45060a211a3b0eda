/// Values read from the database, kept in memory until this process writes what they were read from.
///
/// A reader notes the generation before it reads and keeps its value only when no write ended meanwhile; the store
/// calls `invalidate()` once a transaction that wrote a table the cache follows has ended, committed or not
/// (`Store.cache(limit:following:)`: no service invalidates by hand). So a kept value is never older than the last write this process
/// made, and reads that hit the cache touch no database connection at all. Only this process may write the cached
/// tables (the CLI creates tokens and admins, which a miss reads from the database).
/// Bounded: past `limit` values it starts over. Values that never change for their key (a response body by entity
/// tag) need no invalidation at all.
final class ReadCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    // Safe to share: `generation` and `values` are only touched under `lock`.
    private let lock = ReadWriteLock()
    private var generation = 0
    private var values: [Key: Value] = [:]
    private let limit: Int
    /// When given, the cache answers from memory only while this server follows the others' changes.
    private let freshness: Freshness?

    /// A cache of at most `limit` values.
    convenience init(limit: Int) {
        self.init(limit: limit, freshness: nil)
    }

    /// A cache of at most `limit` values that reads through while `freshness` is stale.
    init(limit: Int, freshness: Freshness?) {
        self.limit = max(1, limit)
        self.freshness = freshness
    }

    /// The cached value for `key`, or the one `read` returns (kept when no write ended while it read). Nil when
    /// `read` finds nothing (absence is never cached: a new row must be found at once). While this server has not
    /// followed the other servers' changes lately (``Freshness``), every call reads and nothing is kept.
    func value(_ key: Key, read: () throws -> Value?) rethrows -> Value? {
        if let freshness, freshness.isStale { return try read() }
        let (cached, seen) = lock.reading { (values[key], generation) }
        if let cached { return cached }
        guard let value = try read() else { return nil }
        lock.writing {
            guard generation == seen else { return }
            if values.count >= limit { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }

    /// Runs `body` on the cached value under the lock (for bookkeeping that is not read from the database, such as
    /// when a token was last used) and returns its result; nil when nothing is cached for `key`.
    func modify<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        lock.writing {
            guard var value = values[key] else { return nil }
            let result = body(&value)
            values[key] = value
            return result
        }
    }

    /// Forgets the values `isStale` picks (a change to some rows: one environment's keys); reads started before keep
    /// nothing.
    func invalidate(where isStale: (Value) -> Bool) {
        lock.writing {
            generation += 1
            values = values.filter { !isStale($0.value) }
        }
    }

    /// Forgets every value (the store calls it after each write to the tables the cache follows).
    func invalidate() {
        lock.writing {
            generation += 1
            values.removeAll(keepingCapacity: true)
        }
    }
}
