import Storage

/// The `debug_tokens` table: an environment's debug tokens by the SHA-256 of their value (never the value), with
/// their expiry, last use and revocation.
enum DebugTokensTable {
    /// The columns ``token(_:)`` reads.
    static let columns = "id, environment_id, name, created_at, expires_at, last_used_at, revoked_at"

    static func insert(_ db: any SQLConnection, _ token: DebugToken, tokenHash: [UInt8], createdBy: String?) throws {
        db.wrote(.debugTokens)
        try db.execute(
            "INSERT INTO debug_tokens (id, environment_id, name, token_hash, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(token.id), .text(token.environmentID), .text(token.name), .blob(tokenHash), SQLValue(createdBy),
             .integer(token.createdAt), .integer(token.expiresAt)]
        )
    }

    /// The environment's tokens, newest first.
    static func list(_ db: any SQLConnection, environmentID: String) throws -> [DebugToken] {
        try db.query("SELECT \(columns) FROM debug_tokens WHERE environment_id = ? ORDER BY created_at DESC, id",
                     [.text(environmentID)]).map(token)
    }

    /// How many of the environment's tokens are active at `now` (unrevoked, unexpired).
    static func activeCount(_ db: any SQLConnection, environmentID: String, now: Int64) throws -> Int {
        try db.queryOne("SELECT COUNT(*) AS n FROM debug_tokens WHERE environment_id = ? AND revoked_at IS NULL AND expires_at > ?",
                        [.text(environmentID), .integer(now)])?.int("n") ?? 0
    }

    /// Every unrevoked token's environment, name and expiry, for the checklists (which judge expiry at their now).
    static func unrevoked(_ db: any SQLConnection) throws -> [DebugToken] {
        try db.query("SELECT \(columns) FROM debug_tokens WHERE revoked_at IS NULL ORDER BY environment_id, created_at, id").map(token)
    }

    static func get(_ db: any SQLConnection, id: String, environmentID: String) throws -> DebugToken? {
        try db.queryOne("SELECT \(columns) FROM debug_tokens WHERE id = ? AND environment_id = ?",
                        [.text(id), .text(environmentID)]).map(token)
    }

    /// The token whose value hashes to `hash`, with the stored hash (to compare in constant time).
    static func get(_ db: any SQLConnection, tokenHash hash: [UInt8]) throws -> (token: DebugToken, hash: [UInt8])? {
        try db.queryOne("SELECT \(columns), token_hash FROM debug_tokens WHERE token_hash = ?", [.blob(hash)])
            .map { row in (token: try token(row), hash: try row.blob("token_hash")) }
    }

    /// Revokes the token unless it already is; returns whether this call revoked it.
    static func revoke(_ db: any SQLConnection, id: String, now: Int64) throws -> Bool {
        db.wrote(.debugTokens)
        return try db.execute("UPDATE debug_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [.integer(now), .text(id)]) == 1
    }

    /// Bookkeeping (``CachedTables/bookkeeping``): declares nothing written.
    static func markUsed(_ db: any SQLConnection, id: String, now: Int64) throws {
        try db.execute("UPDATE debug_tokens SET last_used_at = ? WHERE id = ?", [.integer(now), .text(id)])
    }

    static func token(_ row: Row) throws -> DebugToken {
        DebugToken(
            id: try row.text("id"),
            environmentID: try row.text("environment_id"),
            name: try row.text("name"),
            createdAt: try row.integer("created_at"),
            expiresAt: try row.integer("expires_at"),
            lastUsedAt: try row.optionalInteger("last_used_at"),
            revokedAt: try row.optionalInteger("revoked_at")
        )
    }
}
