import JSON
import Storage

/// The `webhooks` table: endpoints, their sealed secrets and how their deliveries have gone.
enum WebhooksTable {
    static let columns = "id, url, description, events, environments, enabled, disabled_reason, failures, failing_since, last_attempt_at, "
        + "last_result, created_at, previous_until"

    static func insert(_ db: any SQLConnection, _ webhook: Webhook, sealedURL: [UInt8], sealedSecret: [UInt8]) throws {
        try db.execute("""
            INSERT INTO webhooks (id, url, url_sealed, description, events, environments, enabled, secret, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(webhook.id), .text(webhook.url), .blob(sealedURL), .text(webhook.description), .text(list(webhook.events)),
                  .text(list(webhook.environments)), .integer(webhook.enabled ? 1 : 0), .blob(sealedSecret), .integer(webhook.createdAt)])
    }

    static func all(_ db: any SQLConnection) throws -> [Webhook] {
        try db.query("SELECT \(columns) FROM webhooks ORDER BY created_at, id").map(webhook)
    }

    static func get(_ db: any SQLConnection, id: String) throws -> Webhook? {
        try db.queryOne("SELECT \(columns) FROM webhooks WHERE id = ?", [.text(id)]).map(webhook)
    }

    /// The sealed URL.
    static func sealedURL(_ db: any SQLConnection, id: String) throws -> [UInt8]? {
        try db.queryOne("SELECT url_sealed FROM webhooks WHERE id = ?", [.text(id)]).map { try $0.blob("url_sealed") }
    }

    /// A new URL (shown and sealed).
    static func setURL(_ db: any SQLConnection, id: String, shown: String, sealed: [UInt8]) throws {
        try db.execute("UPDATE webhooks SET url = ?, url_sealed = ? WHERE id = ?", [.text(shown), .blob(sealed), .text(id)])
    }

    /// The sealed secrets that sign now: the current one, and the previous one while its overlap lasts.
    static func secrets(_ db: any SQLConnection, id: String, now: Int64) throws -> [[UInt8]] {
        guard let row = try db.queryOne("SELECT secret, previous_secret, previous_until FROM webhooks WHERE id = ?", [.text(id)]) else { return [] }
        var secrets = [try row.blob("secret")]
        if let previous = try row.optionalBlob("previous_secret"), let until = try row.optionalInteger("previous_until"), until > now {
            secrets.append(previous)
        }
        return secrets
    }

    /// Writes what a change may change besides the URL (description, events, environments, enabled); enabling clears
    /// the reason it was disabled and its run of failures.
    static func update(_ db: any SQLConnection, _ webhook: Webhook) throws {
        try db.execute("""
            UPDATE webhooks SET description = ?, events = ?, environments = ?, enabled = ?,
                disabled_reason = CASE WHEN ? = 1 THEN NULL ELSE disabled_reason END,
                failures = CASE WHEN ? = 1 THEN 0 ELSE failures END,
                failing_since = CASE WHEN ? = 1 THEN NULL ELSE failing_since END
            WHERE id = ?
            """, [.text(webhook.description), .text(list(webhook.events)), .text(list(webhook.environments)),
                  .integer(webhook.enabled ? 1 : 0), .integer(webhook.enabled ? 1 : 0), .integer(webhook.enabled ? 1 : 0),
                  .integer(webhook.enabled ? 1 : 0), .text(webhook.id)])
    }

    /// A new secret; the current one keeps signing until `previousUntil`.
    static func rotate(_ db: any SQLConnection, id: String, sealedSecret: [UInt8], previousUntil: Int64) throws -> Bool {
        try db.execute("UPDATE webhooks SET previous_secret = secret, secret = ?, previous_until = ? WHERE id = ?",
                       [.blob(sealedSecret), .integer(previousUntil), .text(id)]) == 1
    }

    static func delete(_ db: any SQLConnection, id: String) throws -> Bool {
        try db.execute("DELETE FROM webhook_deliveries WHERE webhook_id = ?", [.text(id)])
        try db.execute("DELETE FROM webhook_attempts WHERE webhook_id = ?", [.text(id)])
        return try db.execute("DELETE FROM webhooks WHERE id = ?", [.text(id)]) == 1
    }

    /// Records an attempt's result on the endpoint: a success ends a run of failures; a failure starts or extends it.
    static func recordResult(_ db: any SQLConnection, id: String, succeeded: Bool, result: String, at now: Int64) throws {
        if succeeded {
            try db.execute("UPDATE webhooks SET failures = 0, failing_since = NULL, last_attempt_at = ?, last_result = ? WHERE id = ?",
                           [.integer(now), .text(result), .text(id)])
        } else {
            try db.execute("""
                UPDATE webhooks SET failures = failures + 1, failing_since = COALESCE(failing_since, ?), last_attempt_at = ?, last_result = ?
                WHERE id = ?
                """, [.integer(now), .integer(now), .text(result), .text(id)])
        }
    }

    /// Disables an endpoint that failed too long, saying why.
    static func disable(_ db: any SQLConnection, id: String, reason: String) throws {
        try db.execute("UPDATE webhooks SET enabled = 0, disabled_reason = ? WHERE id = ?", [.text(reason), .text(id)])
    }

    static func list(_ values: [String]) -> String { JSON.array(values.map { .string($0) }).text }

    static func strings(_ text: String) -> [String] {
        (try? JSONParser.parse(Array(text.utf8)))?.array?.compactMap(\.string) ?? []
    }

    static func webhook(_ row: Row) throws -> Webhook {
        Webhook(id: try row.text("id"), url: try row.text("url"), description: try row.text("description"),
                events: strings(try row.text("events")), environments: strings(try row.text("environments")),
                enabled: try row.integer("enabled") != 0, disabledReason: try row.optionalText("disabled_reason"),
                failures: try row.int("failures"), failingSince: try row.optionalInteger("failing_since"),
                lastAttemptAt: try row.optionalInteger("last_attempt_at"), lastResult: try row.optionalText("last_result"),
                createdAt: try row.integer("created_at"), previousSecretUntil: try row.optionalInteger("previous_until"))
    }
}
