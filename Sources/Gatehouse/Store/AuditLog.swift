import JSON
import Storage

/// One field's change in an audit entry. Secret values are written as `"[sealed]"`.
public struct AuditChange: Sendable, Equatable {
    public var field: String
    public var before: JSON
    public var after: JSON

    public init(field: String, before: JSON, after: JSON) {
        self.field = field
        self.before = before
        self.after = after
    }

    /// The marker that stands for a secret value.
    public static let sealed: JSON = "[sealed]"
}

/// A recorded change: who, when, what.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Int64
    public var actor: Actor
    public var action: String
    public var environmentID: String?
    public var changes: JSON
}

/// The audit log: every change writes an entry in the same transaction as the change.
public struct AuditLog: Sendable {
    let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Appends an entry inside the caller's write transaction.
    static func record(_ db: any SQLConnection, at: Int64, actor: Actor, action: String, environmentID: String?, changes: [AuditChange]) throws {
        let json = JSON.array(changes.map { .object([.init("field", .string($0.field)), .init("before", $0.before), .init("after", $0.after)]) })
        try db.execute(
            "INSERT INTO audit_log (at, actor_type, actor_id, actor_name, action, environment_id, changes) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.integer(at), .text(actor.kind.rawValue), SQLValue(actor.id), SQLValue(actor.name), .text(action), SQLValue(environmentID), .text(json.text)]
        )
    }

    /// Entries newest first, optionally for one environment and/or actor, `limit` at most, before the cursor (an entry id).
    public func list(environmentID: String? = nil, actorID: String? = nil, limit: Int = 50, before cursor: Int64? = nil) throws -> (entries: [AuditEntry], nextCursor: Int64?) {
        var sql = "SELECT id, at, actor_type, actor_id, actor_name, action, environment_id, changes FROM audit_log WHERE 1 = 1"
        var args: [SQLValue] = []
        if let environmentID { sql += " AND environment_id = ?"; args.append(.text(environmentID)) }
        if let actorID { sql += " AND actor_id = ?"; args.append(.text(actorID)) }
        if let cursor { sql += " AND id < ?"; args.append(.integer(cursor)) }
        sql += " ORDER BY id DESC LIMIT ?"
        args.append(.integer(Int64(limit + 1)))
        let rows = try store.read { db in try db.query(sql, args) }
        let entries = try rows.prefix(limit).map(Self.entry)
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
        var filter = ""
        var args: [SQLValue] = []
        if let environmentID { filter += " AND environment_id = ?"; args.append(.text(environmentID)) }
        if let actorID { filter += " AND actor_id = ?"; args.append(.text(actorID)) }
        let columns = "id, at, actor_type, actor_id, actor_name, action, environment_id, changes"
        return try store.read { db in
            var rows: [Row]
            if let after, before == nil {
                // The page just newer than the cursor: read upwards, then show newest first.
                rows = try db.query("SELECT \(columns) FROM audit_log WHERE id > ?\(filter) ORDER BY id ASC LIMIT ?", [.integer(after)] + args + [.integer(Int64(limit))])
                rows.reverse()
            } else {
                rows = try db.query("SELECT \(columns) FROM audit_log WHERE id < ?\(filter) ORDER BY id DESC LIMIT ?", [.integer(before ?? Int64.max)] + args + [.integer(Int64(limit))])
            }
            let entries = try rows.map(Self.entry)
            guard let first = entries.first, let last = entries.last else {
                return AuditPage(entries: [], older: nil, newer: nil)
            }
            let hasOlder = try db.queryOne("SELECT 1 FROM audit_log WHERE id < ?\(filter) LIMIT 1", [.integer(last.id)] + args) != nil
            let hasNewer = try db.queryOne("SELECT 1 FROM audit_log WHERE id > ?\(filter) LIMIT 1", [.integer(first.id)] + args) != nil
            return AuditPage(entries: entries, older: hasOlder ? last.id : nil, newer: hasNewer ? first.id : nil)
        }
    }

    /// Every admin and token that appears in the log (with its latest name), for an actor filter.
    public func actors() throws -> [Actor] {
        try store.read { db in
            try db.query("""
                SELECT actor_type, actor_id, actor_name FROM audit_log
                WHERE id IN (SELECT MAX(id) FROM audit_log WHERE actor_id IS NOT NULL GROUP BY actor_id)
                ORDER BY actor_type, actor_name
                """).map(Self.actor)
        }
    }

    static func actor(_ row: Row) throws -> Actor {
        guard let kind = Actor.Kind(rawValue: try row.text("actor_type")) else {
            throw StorageError(.malformedRow, "audit_log.actor_type is not a known kind of actor")
        }
        return Actor(kind: kind, id: try row.optionalText("actor_id"), name: try row.optionalText("actor_name"))
    }

    static func entry(_ row: Row) throws -> AuditEntry {
        let changes: JSON
        do {
            changes = try JSONParser.parse(try row.text("changes"))
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.malformedRow, "audit_log.changes is not JSON")
        }
        return AuditEntry(id: try row.integer("id"), at: try row.integer("at"), actor: try actor(row), action: try row.text("action"),
                          environmentID: try row.optionalText("environment_id"), changes: changes)
    }
}
