import Attestation
import SQLite

/// The `attested_keys` table: registered keys and their counter windows.
///
/// Portable SQL: a key is inserted with `ON CONFLICT DO NOTHING` (a duplicate changes no row), and its counter
/// moves only by a conditional `UPDATE … WHERE counter_newest = ? AND counter_seen = ?` from the window it was judged
/// against, so two servers (or two requests) judging one counter cannot both win.
enum AttestedKeys {
    /// The key `keyID` of `environmentID`, or nil (a key of another environment is not found either).
    /// - Throws: `DatabaseError`.
    static func load(_ db: Connection, keyID: [UInt8], environmentID: String) throws -> AttestedKey? {
        guard let row = try db.queryOne("SELECT * FROM attested_keys WHERE key_id = ?", [.blob(keyID)]),
              row["environment_id"].string == environmentID
        else { return nil }
        return key(row)
    }

    /// Stores a newly attested key with a fresh counter window: false when the key id is registered already.
    /// - Throws: `DatabaseError`.
    static func insert(_ db: Connection, _ key: AttestedKey) throws -> Bool {
        try db.execute(
            """
            INSERT INTO attested_keys (key_id, environment_id, public_key, app_id, attestation_environment, counter_newest, counter_seen, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key_id) DO NOTHING
            """,
            [.blob(key.keyID), .text(key.environmentID), .blob(key.publicKey), .text(key.appID), .text(key.attestationEnvironment.rawValue),
             .integer(Int64(key.counter.newest)), .integer(Int64(key.counter.seenBelow)), .integer(key.createdAt)])
        return db.changes == 1
    }

    /// Moves `keyID`'s window from `old` to `new` (and stamps its last use) only if it is still `old`: true when it
    /// moved.
    /// - Throws: `DatabaseError`.
    static func advance(_ db: Connection, keyID: [UInt8], from old: CounterWindow, to new: CounterWindow, now: Int64) throws -> Bool {
        try db.execute(
            "UPDATE attested_keys SET counter_newest = ?, counter_seen = ?, last_used_at = ? WHERE key_id = ? AND counter_newest = ? AND counter_seen = ?",
            [.integer(Int64(new.newest)), .integer(Int64(new.seenBelow)), .integer(now), .blob(keyID),
             .integer(Int64(old.newest)), .integer(Int64(old.seenBelow))])
        return db.changes == 1
    }

    /// `keyID`'s window as stored now, or nil when the key is gone.
    /// - Throws: `DatabaseError`.
    static func window(_ db: Connection, keyID: [UInt8]) throws -> CounterWindow? {
        guard let row = try db.queryOne("SELECT counter_newest, counter_seen FROM attested_keys WHERE key_id = ?", [.blob(keyID)]) else {
            return nil
        }
        return window(row)
    }

    static func window(_ row: Row) -> CounterWindow {
        CounterWindow(newest: UInt32(clamping: row["counter_newest"].int64 ?? 0), seenBelow: UInt32(clamping: row["counter_seen"].int64 ?? 0))
    }

    static func key(_ row: Row) -> AttestedKey? {
        guard let keyID = row["key_id"].bytes, let publicKey = row["public_key"].bytes,
              let environment = AttestationEnvironment(rawValue: row["attestation_environment"].string ?? "")
        else { return nil }
        return AttestedKey(keyID: keyID, environmentID: row["environment_id"].string ?? "", publicKey: publicKey,
                           appID: row["app_id"].string ?? "", attestationEnvironment: environment, counter: window(row),
                           createdAt: row["created_at"].int64 ?? 0, lastUsedAt: row["last_used_at"].int64)
    }
}
