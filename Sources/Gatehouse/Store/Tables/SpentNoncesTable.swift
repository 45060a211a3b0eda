import Crypto
import Storage

/// The `spent_nonces` table: the nonces of signed requests, per app id across every environment of this server, kept
/// while their request could still be inside the 5-minute window (docs/device-api.md "Assessment").
///
/// Portable SQL: spending is one `INSERT … ON CONFLICT DO NOTHING`, so of several servers or threads presenting one
/// nonce exactly one inserts the row; the rest see it spent.
enum SpentNoncesTable {
    /// What is stored for a nonce text.
    static func hash(_ nonce: String) -> [UInt8] {
        SHA256.hash(Array(nonce.utf8))
    }

    /// Spends `nonce` for `appID` until `expiresAt` (unix seconds): true when it was not spent before.
    /// - Throws: `StorageError`.
    static func spend(_ db: any SQLConnection, appID: String, nonce: String, expiresAt: Int64) throws -> Bool {
        try db.execute("INSERT INTO spent_nonces (app_id, nonce_hash, expires_at) VALUES (?, ?, ?) ON CONFLICT (app_id, nonce_hash) DO NOTHING",
                       [.text(appID), .blob(hash(nonce)), .integer(expiresAt)]) == 1
    }

    /// Deletes nonces expired at `now` less ``Tables/clockSkewMargin``, at most `limit` per call, and returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            "DELETE FROM spent_nonces WHERE (app_id, nonce_hash) IN (SELECT app_id, nonce_hash FROM spent_nonces WHERE expires_at <= ? LIMIT ?) RETURNING expires_at",
            [.integer(now - Tables.clockSkewMargin), .integer(Int64(limit))])
        return rows.count
    }

    /// How many nonces are kept now (for metrics and the benchmark).
    /// - Throws: `StorageError`.
    static func count(_ db: any SQLConnection) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM spent_nonces")?.int("n") ?? 0
    }
}
