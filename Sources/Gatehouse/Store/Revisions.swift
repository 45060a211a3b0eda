import Synchronization

/// The caches that follow the store's tables (``CachedTables``): when a write transaction that wrote a table ends
/// (committed or not), every cache following it forgets what it holds. In one process this is the whole signal; the
/// cross-server one (a revision row per table, bumped in the change's transaction) will call the same followers.
final class Revisions: Sendable {
    private let followers = Mutex<[(tables: CachedTables, forget: @Sendable () -> Void)]>([])

    /// Calls `forget` after every write to one of `tables`.
    func follow(_ tables: CachedTables, _ forget: @escaping @Sendable () -> Void) {
        followers.withLock { $0.append((tables, forget)) }
    }

    /// Tells the followers of `tables` (outside the lock).
    func wrote(_ tables: CachedTables) {
        guard !tables.isEmpty else { return }
        let forgetting = followers.withLock { $0.filter { !$0.tables.isDisjoint(with: tables) }.map(\.forget) }
        for forget in forgetting { forget() }
    }
}
