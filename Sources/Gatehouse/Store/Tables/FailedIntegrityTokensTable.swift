import Crypto
import Storage

/// The recent failures of an environment (`failed_integrity_tokens`): the most recent tokens (``kept`` per
/// environment) that the local keys could not decrypt or verify, or that nothing was set to decode, each sealed under
/// the master key with the environment id as associated data, for ``lifetime``. Candidate keys are tried on them
/// before they are trusted (docs/device-api.md "Keys checked before they are trusted").
///
/// Portable SQL: `INSERT … ON CONFLICT DO NOTHING` (a token failing twice is kept once), then a `DELETE … WHERE`
/// of what falls beyond the newest ``kept``.
enum FailedIntegrityTokensTable {
    /// Tokens kept per environment.
    static let kept = 50
    /// How long a failed token is kept, seconds (24 hours).
    static let lifetime: Int64 = 86_400

    /// Stores the sealed `token` of `environmentID`, failed at `now`, and trims the environment to the newest ``kept``.
    /// - Throws: `StorageError`.
    static func insert(_ db: any SQLConnection, tokenHash: [UInt8], sealed: [UInt8], environmentID: String, now: Int64) throws {
        let inserted = try db.execute(
            """
            INSERT INTO failed_integrity_tokens (token_hash, environment_id, failed_at, sealed_token) VALUES (?, ?, ?, ?)
            ON CONFLICT (environment_id, token_hash) DO NOTHING
            """,
            [.blob(tokenHash), .text(environmentID), .integer(now), .blob(sealed)])
        guard inserted == 1 else { return }
        try db.execute(
            """
            DELETE FROM failed_integrity_tokens WHERE environment_id = ? AND token_hash NOT IN
              (SELECT token_hash FROM failed_integrity_tokens WHERE environment_id = ? ORDER BY failed_at DESC, token_hash LIMIT ?)
            """,
            [.text(environmentID), .text(environmentID), .integer(Int64(kept))])
    }

    /// The sealed tokens of `environmentID` that failed after `now - lifetime`, newest first.
    /// - Throws: `StorageError`.
    static func recent(_ db: any SQLConnection, environmentID: String, now: Int64) throws -> [[UInt8]] {
        try db.query(
            "SELECT sealed_token FROM failed_integrity_tokens WHERE environment_id = ? AND failed_at > ? ORDER BY failed_at DESC, token_hash LIMIT ?",
            [.text(environmentID), .integer(now - lifetime), .integer(Int64(kept))]
        ).map { try $0.blob("sealed_token") }
    }

    /// Deletes tokens older than ``lifetime`` at `now`, at most `limit` per call; returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            """
            DELETE FROM failed_integrity_tokens WHERE (environment_id, token_hash) IN
              (SELECT environment_id, token_hash FROM failed_integrity_tokens WHERE failed_at <= ? LIMIT ?) RETURNING failed_at
            """,
            [.integer(now - lifetime), .integer(Int64(limit))])
        return rows.count
    }
}
