import Storage

/// The audit log: every change writes an entry in the same transaction as the change (``AuditLogTable``); this
/// reads it for the API and the dashboard.
public struct AuditLog: Sendable {
    let store: Store

    init(_: Wiring, store: Store) {
        self.store = store
    }

    /// Whether Gatehouse itself (a system actor) created environment `id`, as `--demo` does.
    /// - Throws: `StorageError`.
    public func createdBySystem(_ id: String) throws -> Bool {
        try store.read { db in try AuditLogTable.createdBySystem(db, environmentID: id) }
    }

    /// Entries newest first, optionally for one environment and/or actor, `limit` at most, before the cursor (an entry id).
    public func list(environmentID: String? = nil, actorID: String? = nil, limit: Int = 50, before cursor: Int64? = nil) throws -> (entries: [AuditEntry], nextCursor: Int64?) {
        let filter = AuditLogTable.Filter(environmentID: environmentID, actorID: actorID)
        let rows = try store.read { db in try AuditLogTable.older(db, than: cursor, filter, limit: limit + 1) }
        let entries = Array(rows.prefix(limit))
        let next = rows.count > limit ? entries.last?.id : nil
        return (entries, next)
    }
}

/// One page of the audit log, newest first, with the cursors of the pages around it.
public struct AuditPage: Sendable, Equatable {
    public var entries: [AuditEntry]
    /// Pass as `before` for the next, older page; nil on the oldest page.
    public var older: Int64?
    /// Pass as `after` for the previous, newer page; nil on the newest page.
    public var newer: Int64?
}

extension AuditLog {
    /// A page of entries newest first, filtered by environment and/or actor id: either the `limit` entries just
    /// older than `before`, the `limit` entries just newer than `after`, or the newest ones. Says whether older and
    /// newer entries exist beyond the page.
    public func page(environmentID: String? = nil, actorID: String? = nil, limit: Int = 50, before: Int64? = nil, after: Int64? = nil) throws -> AuditPage {
        let filter = AuditLogTable.Filter(environmentID: environmentID, actorID: actorID)
        return try store.read { db in
            let entries: [AuditEntry]
            if let after, before == nil {
                entries = try AuditLogTable.newer(db, than: after, filter, limit: limit)
            } else {
                entries = try AuditLogTable.older(db, than: before, filter, limit: limit)
            }
            guard let first = entries.first, let last = entries.last else {
                return AuditPage(entries: [], older: nil, newer: nil)
            }
            let hasOlder = try AuditLogTable.exists(db, olderThan: last.id, filter)
            let hasNewer = try AuditLogTable.exists(db, newerThan: first.id, filter)
            return AuditPage(entries: entries, older: hasOlder ? last.id : nil, newer: hasNewer ? first.id : nil)
        }
    }

    /// Every admin and token that appears in the log (with its latest name), for an actor filter.
    public func actors() throws -> [AuditActor] {
        try store.read { db in try AuditLogTable.actors(db) }
    }
}
