/// Following the changes other servers make to a shared database (DESIGN.md "Storage: one seam, two engines"): each
/// change moves its tables' revisions in its own transaction, and its commit wakes the servers listening; each server
/// then reads the revisions and forgets what it cached from the tables that moved. A server that heard nothing looks
/// once a second anyway (a pooler such as pgBouncer in transaction mode drops `LISTEN`), and after a lost connection
/// it forgets everything it cached (wake-ups sent meanwhile were lost).
extension Store {
    /// The channel the revisions' wake-ups are sent on (Migrations/postgresql/0012_revisions.sql).
    static let revisionChannel = "gatehouse_revisions"

    /// Whether other servers write this store's database too, so that ``followOtherServers(waitMilliseconds:)`` must run.
    public var isShared: Bool { database.isShared }

    /// One look at the other servers' changes: waits up to `waitMilliseconds` for a wake-up, then reads every followed
    /// table's revision and tells the caches following those that moved.
    /// - Throws: `DomainError.unavailable` (and then the next successful look tells every cache) when the database
    ///   cannot be reached.
    public func followOtherServers(waitMilliseconds: Int = 1_000) throws {
        do {
            _ = try database.awaitChange(channel: Self.revisionChannel, milliseconds: waitMilliseconds)
            let current = try read { db in try Tables.Revisions.all(db) }
            revisions.read(current)
        } catch {
            revisions.lost()
            throw domainError(error)
        }
    }
}
