import Attestation
import Storage

/// The `attested_keys` table: registered keys and their counter windows.
///
/// Portable SQL: a key is inserted with `ON CONFLICT DO NOTHING` (a duplicate changes no row), and its counter
/// moves only by a conditional `UPDATE … WHERE counter_newest = ? AND counter_seen = ?` from the window it was judged
/// against, so two servers (or two requests) judging one counter cannot both win.
enum AttestedKeysTable {
    /// The key `keyID` of `environmentID`, or nil (a key of another environment is not found either).
    /// - Throws: `StorageError`.
    static func load(_ db: any SQLConnection, keyID: [UInt8], environmentID: String) throws -> AttestedKey? {
        guard let row = try db.queryOne("SELECT \(columns) FROM attested_keys WHERE key_id = ?", [.blob(keyID)]),
              try row.text("environment_id") == environmentID
        else { return nil }
        return try key(row)
    }

    /// Stores a newly attested key with a fresh counter window and, when it was accepted, its attestation's receipt
    /// with its first refresh due at `refreshAfter`: false when the key id is registered already.
    /// - Throws: `StorageError`.
    static func insert(_ db: any SQLConnection, _ key: AttestedKey, receipt: StoredAppleReceipt? = nil, refreshAfter: Int64? = nil) throws -> Bool {
        try db.execute(
            """
            INSERT INTO attested_keys (key_id, environment_id, public_key, app_id, attestation_environment, counter_newest, counter_seen, created_at,
                                       receipt, receipt_not_before, receipt_expires_at, refresh_after)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING
            """,
            [.blob(key.keyID), .text(key.environmentID), .blob(key.publicKey), .text(key.appID), .text(key.attestationEnvironment.rawValue),
             .integer(Int64(key.counter.newest)), .integer(Int64(key.counter.seenBelow)), .integer(key.createdAt),
             SQLValue(receipt?.bytes), SQLValue(receipt?.notBefore), SQLValue(receipt?.expiresAt), SQLValue(receipt == nil ? nil : refreshAfter)]) == 1
    }

    /// Moves `keyID`'s window from `old` to `new` (and stamps its last use) only if it is still `old`: true when it
    /// moved.
    /// - Throws: `StorageError`.
    static func advance(_ db: any SQLConnection, keyID: [UInt8], from old: CounterWindow, to new: CounterWindow, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE attested_keys SET counter_newest = ?, counter_seen = ?, last_used_at = ? WHERE key_id = ? AND counter_newest = ? AND counter_seen = ?",
            [.integer(Int64(new.newest)), .integer(Int64(new.seenBelow)), .integer(now), .blob(keyID),
             .integer(Int64(old.newest)), .integer(Int64(old.seenBelow))]) == 1
    }

    /// `keyID`'s window as stored now, or nil when the key is gone.
    /// - Throws: `StorageError`.
    static func window(_ db: any SQLConnection, keyID: [UInt8]) throws -> CounterWindow? {
        guard let row = try db.queryOne("SELECT counter_newest, counter_seen FROM attested_keys WHERE key_id = ?", [.blob(keyID)]) else {
            return nil
        }
        return try window(row)
    }

    static func window(_ row: Row) throws -> CounterWindow {
        guard let newest = UInt32(exactly: try row.integer("counter_newest")), let seen = UInt32(exactly: try row.integer("counter_seen")) else {
            throw StorageError(.malformedRow, "attested_keys.counter_newest or counter_seen is out of range")
        }
        return CounterWindow(newest: newest, seenBelow: seen)
    }

    /// Calls `body` with each app id and attestation environment of `environmentID`'s keys: how many keys, and the
    /// newest assertion among them.
    static func countsPerApp(_ db: any SQLConnection, environmentID: String,
                             _ body: (_ appID: String, _ environment: AttestationEnvironment, _ keys: Int, _ lastUsedAt: Int64?) throws -> Void) throws {
        try db.forEachRow(
            "SELECT app_id, attestation_environment, COUNT(*) AS n, MAX(last_used_at) AS last FROM attested_keys WHERE environment_id = ? GROUP BY app_id, attestation_environment",
            [.text(environmentID)]
        ) { row in
            try body(try row.text("app_id"), try environment(row), try row.int("n"), try row.optionalInteger("last"))
        }
    }

    static func environment(_ row: Row) throws -> AttestationEnvironment {
        guard let environment = AttestationEnvironment(rawValue: try row.text("attestation_environment")) else {
            throw StorageError(.malformedRow, "attested_keys.attestation_environment is neither production nor development")
        }
        return environment
    }

    /// The columns ``key(_:)`` reads.
    static let columns = "key_id, environment_id, public_key, app_id, attestation_environment, counter_newest, counter_seen, created_at, last_used_at, risk_metric, risk_metric_at"

    static func key(_ row: Row) throws -> AttestedKey {
        AttestedKey(keyID: try row.blob("key_id"), environmentID: try row.text("environment_id"), publicKey: try row.blob("public_key"),
                           appID: try row.text("app_id"), attestationEnvironment: try environment(row), counter: try window(row),
                           createdAt: try row.integer("created_at"), lastUsedAt: try row.optionalInteger("last_used_at"),
                           riskMetric: try row.optionalInteger("risk_metric").map(Int.init), riskMetricAt: try row.optionalInteger("risk_metric_at"))
    }
}
