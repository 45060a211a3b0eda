import Crypto
import Storage

/// The replay store of Play Integrity tokens (`spent_integrity_tokens`): the SHA-256 of each token judged, never the
/// token, kept for as long as the token could still pass the freshness check.
///
/// Portable SQL: spending is one `INSERT … ON CONFLICT DO NOTHING`, so of several servers or threads presenting one
/// token exactly one inserts the row; every other sees it spent.
enum SpentIntegrityTokensTable {
    /// How long after its timestamp a token could still pass the freshness check (10 minutes), in seconds.
    static let freshness: Int64 = 600

    /// When the hash of a token made at `timestampMillis` may be forgotten, judged at `now` (Unix seconds): the first
    /// second at which the token can no longer pass the freshness check (`|now × 1000 − timestamp| ≤ 600 000`, with
    /// `now` in whole seconds, as `PlayIntegrityEvaluator` judges it), so that during its last fresh second it is
    /// still kept; `nil` when the token cannot pass it any more (or never had a timestamp), so there is nothing to
    /// keep. Only tokens whose signature verified reach here, so a timestamp far ahead costs no more than one row.
    static func expiry(timestampMillis: Int64?, now: Int64) -> Int64? {
        guard let timestampMillis else { return nil }
        let (limit, overflow) = timestampMillis.addingReportingOverflow(freshness * 1000)
        guard !overflow else { return Int64.max }
        // The last whole second s with s × 1000 ≤ limit (floor division, also for a timestamp before 1970).
        let lastFresh = limit >= 0 ? limit / 1000 : -((-limit + 999) / 1000)
        let expiry = lastFresh + 1
        return expiry > now ? expiry : nil
    }

    /// Spends `token` in `environmentID` until `expiresAt`: true when it had been spent before (a replay).
    /// - Throws: `StorageError`.
    static func spend(_ db: any SQLConnection, tokenHash: [UInt8], environmentID: String, expiresAt: Int64) throws -> Bool {
        let inserted = try db.execute(
            "INSERT INTO spent_integrity_tokens (token_hash, environment_id, expires_at) VALUES (?, ?, ?) ON CONFLICT (environment_id, token_hash) DO NOTHING",
            [.blob(tokenHash), .text(environmentID), .integer(expiresAt)])
        return inserted == 0
    }

    /// Deletes hashes expired at `now` less ``Tables/clockSkewMargin``, at most `limit` per call; returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            """
            DELETE FROM spent_integrity_tokens WHERE (environment_id, token_hash) IN
              (SELECT environment_id, token_hash FROM spent_integrity_tokens WHERE expires_at <= ? LIMIT ?) RETURNING expires_at
            """,
            [.integer(now - Tables.clockSkewMargin), .integer(Int64(limit))])
        return rows.count
    }
}
