import Synchronization

/// The revision of each followed table (``CachedTables``) and the caches that follow them: when a write transaction
/// that wrote a table ends (committed or not), its revision moves on and every cache following it forgets what it
/// holds. One process's revisions for now; they are what another server would observe to keep its caches coherent.
final class Revisions: Sendable {
    private struct State {
        var revisions: [UInt16: UInt64] = [:]
        var followers: [(tables: CachedTables, forget: @Sendable () -> Void)] = []
    }

    private let state = Mutex(State())

    /// Calls `forget` after every write to one of `tables`.
    func follow(_ tables: CachedTables, _ forget: @escaping @Sendable () -> Void) {
        state.withLock { $0.followers.append((tables, forget)) }
    }

    /// Moves the revisions of `tables` on and tells their followers (outside the lock).
    func wrote(_ tables: CachedTables) {
        guard !tables.isEmpty else { return }
        let followers = state.withLock { state -> [@Sendable () -> Void] in
            for bit in 0..<16 where tables.rawValue & (1 << bit) != 0 {
                state.revisions[UInt16(1 << bit), default: 0] &+= 1
            }
            return state.followers.filter { !$0.tables.isDisjoint(with: tables) }.map(\.forget)
        }
        for forget in followers { forget() }
    }

    /// The revision of `table` (one table): how many write transactions wrote it in this process.
    func revision(of table: CachedTables) -> UInt64 {
        state.withLock { $0.revisions[table.rawValue, default: 0] }
    }
}
