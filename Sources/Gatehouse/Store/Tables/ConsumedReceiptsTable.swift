import Storage

/// The `consumed_receipts` table: receipts spent by a consuming verification, by environment and `sub`, kept until
/// the receipt's `exp` (docs/device-api.md "Receipts spent once").
///
/// Portable SQL: consuming is one `INSERT … ON CONFLICT DO NOTHING`, so of several servers or threads consuming one
/// receipt exactly one inserts the row; every other sees it consumed.
enum ConsumedReceiptsTable {
    /// Spends the receipt `subject` of `environmentID` until `expiresAt` (unix seconds): true when this call spent
    /// it, false when it had been spent before.
    /// - Throws: `StorageError`.
    static func consume(_ db: any SQLConnection, environmentID: String, subject: String, expiresAt: Int64) throws -> Bool {
        try db.execute(
            "INSERT INTO consumed_receipts (environment_id, subject, expires_at) VALUES (?, ?, ?) ON CONFLICT (environment_id, subject) DO NOTHING",
            [.text(environmentID), .text(subject), .integer(expiresAt)]) == 1
    }

    /// Whether the receipt `subject` of `environmentID` has been spent.
    /// - Throws: `StorageError`.
    static func isConsumed(_ db: any SQLConnection, environmentID: String, subject: String) throws -> Bool {
        try db.queryOne("SELECT 1 AS spent FROM consumed_receipts WHERE environment_id = ? AND subject = ?",
                        [.text(environmentID), .text(subject)]) != nil
    }

    /// Deletes receipts whose `exp` has come at `now` less ``Tables/clockSkewMargin``, at most `limit` per call; returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            """
            DELETE FROM consumed_receipts WHERE (environment_id, subject) IN
              (SELECT environment_id, subject FROM consumed_receipts WHERE expires_at <= ? LIMIT ?) RETURNING expires_at
            """,
            [.integer(now - Tables.clockSkewMargin), .integer(Int64(limit))])
        return rows.count
    }
}
