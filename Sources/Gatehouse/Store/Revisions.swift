import Synchronization

/// The caches that follow the store's tables (``CachedTables``). When a write transaction of this process that wrote a
/// table ends (committed or not), every cache following it forgets what it holds; when another server's change
/// moves a table's revision (``Store/followOtherServers(waitMilliseconds:)``), so do the caches following that table.
final class Revisions: Sendable {
    private let followers = Mutex<[(tables: CachedTables, forget: @Sendable () -> Void)]>([])
    /// Caches of attested keys that forget one environment's keys at a time.
    private let attestedKeyFollowers = Mutex<[@Sendable (String) -> Void]>([])
    /// The revisions last read from the database; nil before the first look and after a failed one (wake-ups may have
    /// been lost meanwhile), so that the next look tells every follower.
    private let seen = Mutex<[String: Int64]?>(nil)
    /// How many times the caches of each table (by its `revisions` name) were told to forget, since start.
    private let forgotten = Mutex<[String: Int]>([:])

    /// Calls `forget` after every write to one of `tables`.
    func follow(_ tables: CachedTables, _ forget: @escaping @Sendable () -> Void) {
        followers.withLock { $0.append((tables, forget)) }
    }

    /// Calls `forget` with an environment's id after every change to some of its attested keys (a refreshed receipt);
    /// a change to the table as a whole (an environment deleted) is heard through ``follow(_:_:)``.
    func followAttestedKeys(_ forget: @escaping @Sendable (String) -> Void) {
        attestedKeyFollowers.withLock { $0.append(forget) }
    }

    /// Tells the followers of `tables`, and the attested-key followers of `environmentIDs` (outside the locks).
    func wrote(_ tables: CachedTables, attestedKeysOf environmentIDs: Set<String> = []) {
        if !environmentIDs.isEmpty {
            forgotten.withLock { $0["attested_keys", default: 0] += environmentIDs.count }
            let forgetting = attestedKeyFollowers.withLock { $0 }
            for environmentID in environmentIDs {
                for forget in forgetting { forget(environmentID) }
            }
        }
        guard !tables.isEmpty else { return }
        forgotten.withLock { counts in
            for (table, name) in CachedTables.revisionNames where tables.contains(table) { counts[name, default: 0] += 1 }
        }
        let forgetting = followers.withLock { $0.filter { !$0.tables.isDisjoint(with: tables) }.map(\.forget) }
        for forget in forgetting { forget() }
    }

    /// Takes the revisions just read and tells the followers of the tables that moved since the last look (of every
    /// table, after none or a failed one); returns those tables.
    @discardableResult
    func read(_ current: [String: Int64]) -> CachedTables {
        let moved = seen.withLock { seen -> (tables: CachedTables, environments: Set<String>) in
            defer { seen = current }
            guard let before = seen else { return (CachedTables(CachedTables.revisionNames.map(\.table)), []) }
            let changed = current.filter { before[$0.key] != $0.value }.map(\.key)
            let prefix = RevisionsTable.attestedKeysPrefix
            return (CachedTables(revisionNames: changed),
                    Set(changed.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }))
        }
        wrote(moved.tables, attestedKeysOf: moved.environments)
        return moved.tables
    }

    /// How many times the caches of each table were told to forget since start, by this process's writes or another
    /// server's (`gatehouse_cache_invalidations_total`).
    var invalidations: [String: Int] { forgotten.withLock { $0 } }

    /// Forgets the revisions seen: the next look tells every follower.
    func lost() {
        seen.withLock { $0 = nil }
    }
}
