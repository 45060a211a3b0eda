import Crypto
import Storage

/// Single-use App Attest challenges (docs/device-api.md "Challenges"): issued for an environment, valid 5 minutes,
/// consumed once. Only the SHA-256 of a challenge is stored; its text is what the device hashes.
///
/// The SQL runs on PostgreSQL too: consuming is one `DELETE … RETURNING`, so of several servers or threads
/// presenting one challenge exactly one sees the row.
enum ChallengesTable {
    /// How long a challenge stays valid.
    static let lifetime: Int64 = 300
    /// Random bytes per challenge.
    static let byteCount = 32

    /// A fresh challenge text (base64url, no padding, of 32 random bytes).
    /// - Throws: `CryptoError` when the system's random source fails.
    static func make() throws -> String {
        Base64.encode(try SecureRandom.bytes(byteCount), alphabet: .urlSafe, padded: false)
    }

    /// What is stored for a challenge text.
    static func hash(_ challenge: String) -> [UInt8] {
        SHA256.hash(Array(challenge.utf8))
    }

    /// Stores `challenge` for `environmentID`, valid until `expiresAt`.
    /// - Throws: `StorageError` (a foreign-key failure when the environment is gone).
    static func insert(_ db: any SQLConnection, challenge: String, environmentID: String, expiresAt: Int64) throws {
        try db.execute("INSERT INTO challenges (challenge_hash, environment_id, expires_at) VALUES (?, ?, ?)",
                       [.blob(hash(challenge)), .text(environmentID), .integer(expiresAt)])
    }

    /// Consumes `challenge` if it was issued to `environmentID` and has not expired at `now`: true exactly once.
    /// A challenge presented to another environment is left for its own.
    /// - Throws: `StorageError`.
    static func consume(_ db: any SQLConnection, challenge: String, environmentID: String, now: Int64) throws -> Bool {
        let rows = try db.query(
            "DELETE FROM challenges WHERE challenge_hash = ? AND environment_id = ? AND expires_at > ? RETURNING expires_at",
            [.blob(hash(challenge)), .text(environmentID), .integer(now)])
        return !rows.isEmpty
    }

    /// Deletes challenges expired at `now`, at most `limit` per call, and returns how many.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64, limit: Int) throws -> Int {
        let rows = try db.query(
            "DELETE FROM challenges WHERE challenge_hash IN (SELECT challenge_hash FROM challenges WHERE expires_at <= ? LIMIT ?) RETURNING expires_at",
            [.integer(now), .integer(Int64(limit))])
        return rows.count
    }
}
