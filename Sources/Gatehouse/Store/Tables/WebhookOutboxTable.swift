import JSON
import Storage

/// The webhooks' outbox (`webhook_events`), each endpoint's deliveries to make (`webhook_deliveries`), the attempts made
/// (`webhook_attempts`) and the checklist states last announced (`webhook_checklist_states`).
///
/// Portable SQL: a delivery is claimed with a conditional `UPDATE … WHERE claim = ?` on the value read, which each claim
/// moves on, so of servers that read the same row exactly one claims it (on PostgreSQL's READ COMMITTED the second
/// UPDATE waits for the first and then finds the row changed).
enum WebhookOutboxTable {
    /// An event waiting at the head of an endpoint's queue.
    struct Head: Sendable, Equatable {
        var webhookID: String
        var eventID: String
        var dueAt: Int64
        var attempts: Int
        var claimedUntil: Int64
        var claim: Int64
    }

    /// A stored event: its type, environment, the data and text it was written with, and when.
    struct Event: Sendable, Equatable {
        var id: String
        var type: String
        var environmentID: String?
        var data: JSON
        var text: String
        var createdAt: Int64
    }

    /// Writes `event` and a delivery to each endpoint that receives it (a disabled one gets it when enabled again, if
    /// that is within 3 days); nothing when none does. Runs in the transaction that changes the state the event tells of.
    static func enqueue(_ db: any SQLConnection, _ event: Event) throws {
        guard let type = WebhookEventType(rawValue: event.type) else { return }
        let receivers = try WebhooksTable.all(db).filter { $0.receives(type, environmentID: event.environmentID) }
        guard !receivers.isEmpty else { return }
        let stored = JSON.object([.init("data", event.data), .init("text", .string(event.text))])
        // An event whose id was made from what it tells (a throttled account's, once an hour) is written once.
        guard try db.execute("""
            INSERT INTO webhook_events (id, type, environment_id, data, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING
            """, [.text(event.id), .text(event.type), SQLValue(event.environmentID), .text(stored.text), .integer(event.createdAt)]) == 1 else { return }
        for receiver in receivers {
            try db.execute("INSERT INTO webhook_deliveries (webhook_id, event_id, created_at, due_at) VALUES (?, ?, ?, ?)",
                           [.text(receiver.id), .text(event.id), .integer(event.createdAt), .integer(event.createdAt)])
        }
    }

    static func event(_ db: any SQLConnection, id: String) throws -> Event? {
        guard let row = try db.queryOne("SELECT id, type, environment_id, data, created_at FROM webhook_events WHERE id = ?", [.text(id)]) else { return nil }
        let stored = try JSONParser.parse(Array(try row.text("data").utf8))
        return Event(id: try row.text("id"), type: try row.text("type"), environmentID: try row.optionalText("environment_id"),
                     data: stored["data"] ?? .null, text: stored["text"]?.string ?? "", createdAt: try row.integer("created_at"))
    }

    /// The oldest delivery of each enabled endpoint (its queue's head: an endpoint's events go in order).
    static func heads(_ db: any SQLConnection) throws -> [Head] {
        try db.query("""
            SELECT d.webhook_id, d.event_id, d.due_at, d.attempts, d.claimed_until, d.claim
            FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
            WHERE w.enabled = 1 AND NOT EXISTS (
                SELECT 1 FROM webhook_deliveries e WHERE e.webhook_id = d.webhook_id
                AND (e.created_at < d.created_at OR (e.created_at = d.created_at AND e.event_id < d.event_id)))
            ORDER BY d.due_at
            """).map { row in
            Head(webhookID: try row.text("webhook_id"), eventID: try row.text("event_id"), dueAt: try row.integer("due_at"),
                 attempts: try row.int("attempts"), claimedUntil: try row.integer("claimed_until"), claim: try row.integer("claim"))
        }
    }

    /// Claims `head` until `until` when it is still as read: true when this server holds it.
    static func claim(_ db: any SQLConnection, _ head: Head, until: Int64) throws -> Bool {
        try db.execute("""
            UPDATE webhook_deliveries SET claimed_until = ?, claim = claim + 1 WHERE webhook_id = ? AND event_id = ? AND claim = ?
            """, [.integer(until), .text(head.webhookID), .text(head.eventID), .integer(head.claim)]) == 1
    }

    /// The delivery is done (delivered, or dropped).
    static func delivered(_ db: any SQLConnection, webhookID: String, eventID: String) throws {
        try db.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ?", [.text(webhookID), .text(eventID)])
    }

    /// A failed attempt: tried again at `dueAt`, unclaimed.
    static func retry(_ db: any SQLConnection, webhookID: String, eventID: String, dueAt: Int64) throws {
        try db.execute("""
            UPDATE webhook_deliveries SET attempts = attempts + 1, due_at = ?, claimed_until = 0, claim = claim + 1
            WHERE webhook_id = ? AND event_id = ?
            """, [.integer(dueAt), .text(webhookID), .text(eventID)])
    }

    /// How many deliveries wait, all endpoints together (`/metrics`).
    static func waiting(_ db: any SQLConnection) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM webhook_deliveries")?.int("n") ?? 0
    }

    // MARK: - Attempts

    /// Keeps the last this many attempts of an endpoint.
    static let attemptsKept = 100

    static func recordAttempt(_ db: any SQLConnection, webhookID: String, _ attempt: WebhookAttempt) throws {
        try db.execute("""
            INSERT INTO webhook_attempts (webhook_id, event_id, type, at, status, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.text(webhookID), .text(attempt.eventID), .text(attempt.type), .integer(attempt.at), SQLValue(attempt.status.map { Int64($0) }),
                  SQLValue(attempt.error), .integer(attempt.durationMilliseconds)])
        try db.execute("""
            DELETE FROM webhook_attempts WHERE webhook_id = ? AND id NOT IN (
                SELECT id FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT \(attemptsKept))
            """, [.text(webhookID), .text(webhookID)])
    }

    /// The endpoint's attempts, newest first.
    static func attempts(_ db: any SQLConnection, webhookID: String) throws -> [WebhookAttempt] {
        try db.query("""
            SELECT event_id, type, at, status, error, duration_ms FROM webhook_attempts WHERE webhook_id = ? ORDER BY id DESC LIMIT \(attemptsKept)
            """, [.text(webhookID)]).map { row in
            WebhookAttempt(eventID: try row.text("event_id"), type: try row.text("type"), at: try row.integer("at"),
                           status: try row.optionalInteger("status").map { Int($0) }, error: try row.optionalText("error"),
                           durationMilliseconds: try row.integer("duration_ms"))
        }
    }

    /// Deletes events made before `before` (and so their deliveries): at most `limit`; answers how many went.
    static func purge(_ db: any SQLConnection, before: Int64, limit: Int) throws -> Int {
        let ids = try db.query("SELECT id FROM webhook_events WHERE created_at < ? ORDER BY created_at LIMIT \(limit)", [.integer(before)])
            .map { try $0.text("id") }
        for id in ids {
            try db.execute("DELETE FROM webhook_deliveries WHERE event_id = ?", [.text(id)])
            try db.execute("DELETE FROM webhook_events WHERE id = ?", [.text(id)])
        }
        return ids.count
    }

    // MARK: - Checklist states

    /// Every item state of an environment, by item.
    static func checklistStates(_ db: any SQLConnection, environmentID: String) throws -> [String: (announced: String, heldUntil: Int64)] {
        var states: [String: (announced: String, heldUntil: Int64)] = [:]
        for row in try db.query("SELECT item_id, announced, held_until FROM webhook_checklist_states WHERE environment_id = ?", [.text(environmentID)]) {
            states[try row.text("item_id")] = (try row.text("announced"), try row.integer("held_until"))
        }
        return states
    }

    /// The first sight of an item: its status is the baseline (nothing is announced); a row another server wrote first stays.
    static func baseline(_ db: any SQLConnection, environmentID: String, itemID: String, status: String, now: Int64) throws {
        try db.execute("""
            INSERT INTO webhook_checklist_states (environment_id, item_id, announced, held_until) VALUES (?, ?, ?, ?)
            ON CONFLICT (environment_id, item_id) DO NOTHING
            """, [.text(environmentID), .text(itemID), .text(status), .integer(now)])
    }

    /// Takes the once-per-hold right to announce `itemID` (a route refusing): true when no announcement of it is held
    /// now (and this server took it), false while one is (or another server took it first).
    static func takeOnce(_ db: any SQLConnection, environmentID: String, itemID: String, now: Int64, heldUntil: Int64) throws -> Bool {
        let inserted = try db.execute("""
            INSERT INTO webhook_checklist_states (environment_id, item_id, announced, held_until) VALUES (?, ?, 'sent', ?)
            ON CONFLICT (environment_id, item_id) DO NOTHING
            """, [.text(environmentID), .text(itemID), .integer(heldUntil)])
        if inserted == 1 { return true }
        return try db.execute("UPDATE webhook_checklist_states SET held_until = ? WHERE environment_id = ? AND item_id = ? AND held_until <= ?",
                              [.integer(heldUntil), .text(environmentID), .text(itemID), .integer(now)]) == 1
    }

    /// Moves an item from the state read to `status`, held until `heldUntil`: true when this server moved it (and so
    /// announces it), false when another server did first.
    static func announce(_ db: any SQLConnection, environmentID: String, itemID: String, from seen: (announced: String, heldUntil: Int64),
                         to status: String, heldUntil: Int64) throws -> Bool {
        try db.execute("""
            UPDATE webhook_checklist_states SET announced = ?, held_until = ?
            WHERE environment_id = ? AND item_id = ? AND announced = ? AND held_until = ?
            """, [.text(status), .integer(heldUntil), .text(environmentID), .text(itemID), .text(seen.announced), .integer(seen.heldUntil)]) == 1
    }
}
