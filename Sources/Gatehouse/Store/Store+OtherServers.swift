/// Following the changes other servers make to a shared database (docs/architecture.md "Storage: one seam, two engines"): each
/// change moves its tables' revisions in its own transaction, and its commit wakes the servers listening; each server
/// then reads the revisions and forgets what it cached from the tables that moved. A server that heard nothing looks
/// once a second anyway (a pooler such as pgBouncer in transaction mode drops `LISTEN`), and after a lost connection
/// it forgets everything it cached (wake-ups sent meanwhile were lost).
extension Store {
    /// The channel the revisions' wake-ups are sent on (Migrations/postgresql/0012_revisions.sql).
    static let revisionChannel = "gatehouse_revisions"

    /// Whether other servers write this store's database too, so that ``followOtherServers(waitMilliseconds:)`` must run.
    public var isShared: Bool { database.isShared }

    /// Tells every server of a shared database to forget everything it cached, within a second: for changes written
    /// around the store (SQL typed by an operator during an incident), which move no revision by themselves.
    /// - Throws: `DomainError.unavailable` when the database cannot be reached.
    func announceOutsideChanges() throws {
        try write { db in try RevisionsTable.bumpAll(db) }
        revisions.lost()
    }

    /// One look at the other servers' changes: waits up to `waitMilliseconds` for a wake-up, then reads every followed
    /// table's revision through the pool and tells the caches following those that moved. The read does not depend on
    /// the listening connection: when listening fails (connections at their limit, a pooler that drops `LISTEN`) the
    /// revisions are still read, and the caches still follow; the listener's failure is reported after the look.
    /// - Throws: `DomainError.unavailable` when the revisions cannot be read (then the next successful look tells
    ///   every cache), or when the listener failed (the look itself was done).
    public func followOtherServers(waitMilliseconds: Int = 1_000) throws {
        var listening: (any Error)?
        do {
            _ = try database.awaitChange(channel: Self.revisionChannel, milliseconds: waitMilliseconds)
        } catch {
            // Wake-ups sent while it was down are lost, and a change written around the store moves no revision:
            // this look tells every cache, as after a lost database.
            listening = error
            revisions.lost()
        }
        do {
            let current = try read { db in try RevisionsTable.all(db) }
            revisions.read(current)
            freshness.looked()
        } catch {
            revisions.lost()
            throw domainError(error)
        }
        if let listening { throw domainError(listening) }
    }
}
