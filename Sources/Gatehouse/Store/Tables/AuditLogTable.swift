import JSON
import Storage

/// The `audit_log` table: one row per change, written in the change's own transaction.
enum AuditLogTable {
    /// Appends an entry inside the caller's write transaction.
    static func record(_ db: any SQLConnection, at: Int64, actor: AuditActor, action: String, environmentID: String?, changes: [AuditChange]) throws {
        let json = JSON.array(changes.map { .object([.init("field", .string($0.field)), .init("before", $0.before), .init("after", $0.after)]) })
        try db.execute(
            "INSERT INTO audit_log (at, actor_type, actor_id, actor_name, action, environment_id, changes) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.integer(at), .text(actor.kind.rawValue), SQLValue(actor.id), SQLValue(actor.name), .text(action), SQLValue(environmentID), .text(json.text)]
        )
        // A change to the control plane that webhooks announce goes to their outbox in the same transaction.
        if let event = try SecurityEvent.make(action: action, actor: actor, environmentID: environmentID, changes: changes, at: at) {
            try WebhookOutboxTable.enqueue(db, event)
        }
    }

    /// Which entries a listing keeps: one environment's, one actor's, or all.
    struct Filter {
        var environmentID: String?
        var actorID: String?

        /// `AND …` conditions on fixed columns, each value bound (never spliced).
        var sql: String {
            (environmentID == nil ? "" : " AND environment_id = ?") + (actorID == nil ? "" : " AND actor_id = ?")
        }

        var arguments: [SQLValue] {
            [environmentID.map { .text($0) }, actorID.map { .text($0) }].compactMap { $0 }
        }
    }

    static let columns = "id, at, actor_type, actor_id, actor_name, action, environment_id, changes"

    /// At most `limit` entries older than entry `before` (all when nil), newest first.
    static func older(_ db: any SQLConnection, than before: Int64?, _ filter: Filter, limit: Int) throws -> [AuditEntry] {
        try db.query("SELECT \(columns) FROM audit_log WHERE id < ?\(filter.sql) ORDER BY id DESC LIMIT ?",
                     [.integer(before ?? Int64.max)] + filter.arguments + [.integer(Int64(limit))]).map(entry)
    }

    /// At most `limit` entries just newer than entry `after`, newest first.
    static func newer(_ db: any SQLConnection, than after: Int64, _ filter: Filter, limit: Int) throws -> [AuditEntry] {
        try db.query("SELECT \(columns) FROM audit_log WHERE id > ?\(filter.sql) ORDER BY id ASC LIMIT ?",
                     [.integer(after)] + filter.arguments + [.integer(Int64(limit))]).map(entry).reversed()
    }

    /// Whether an entry older (or newer) than `id` matches `filter`.
    static func exists(_ db: any SQLConnection, olderThan id: Int64, _ filter: Filter) throws -> Bool {
        try db.queryOne("SELECT 1 AS found FROM audit_log WHERE id < ?\(filter.sql) LIMIT 1", [.integer(id)] + filter.arguments) != nil
    }

    static func exists(_ db: any SQLConnection, newerThan id: Int64, _ filter: Filter) throws -> Bool {
        try db.queryOne("SELECT 1 AS found FROM audit_log WHERE id > ?\(filter.sql) LIMIT 1", [.integer(id)] + filter.arguments) != nil
    }

    /// Whether environment `environmentID` was created by Gatehouse itself (a system actor), as `--demo` does.
    static func createdBySystem(_ db: any SQLConnection, environmentID: String) throws -> Bool {
        try db.queryOne(
            "SELECT 1 AS yes FROM audit_log WHERE environment_id = ? AND action = 'environment.create' AND actor_type = 'system' LIMIT 1",
            [.text(environmentID)]) != nil
    }

    /// Every admin and token that appears in the log, with its latest name.
    static func actors(_ db: any SQLConnection) throws -> [AuditActor] {
        try db.query("""
            SELECT actor_type, actor_id, actor_name FROM audit_log
            WHERE id IN (SELECT MAX(id) FROM audit_log WHERE actor_id IS NOT NULL GROUP BY actor_id)
            ORDER BY actor_type, actor_name
            """).map(actor)
    }

    static func actor(_ row: Row) throws -> AuditActor {
        guard let kind = AuditActor.Kind(rawValue: try row.text("actor_type")) else {
            throw StorageError(.malformedRow, "audit_log.actor_type is not a known kind of actor")
        }
        return AuditActor(kind: kind, id: try row.optionalText("actor_id"), name: try row.optionalText("actor_name"))
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
