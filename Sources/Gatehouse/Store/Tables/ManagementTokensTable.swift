import Storage

/// The `management_tokens` table: automation tokens by the SHA-256 of their secret (never the secret), with their
/// scope, last use and revocation.
enum ManagementTokensTable {
    /// The columns ``token(_:)`` reads.
    static let columns = "id, name, scope, hint, created_at, last_used_at, revoked_at"

    static func insert(_ db: any SQLConnection, _ token: ManagementToken, tokenHash: [UInt8], createdBy: String?) throws {
        db.wrote(.managementTokens)
        try db.execute(
            "INSERT INTO management_tokens (id, name, scope, token_hash, hint, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [.text(token.id), .text(token.name), .text(token.scope.rawValue), .blob(tokenHash), .text(token.hint), SQLValue(createdBy),
             .integer(token.createdAt)]
        )
    }

    /// Every token, newest first.
    static func all(_ db: any SQLConnection) throws -> [ManagementToken] {
        try db.query("SELECT \(columns) FROM management_tokens ORDER BY created_at DESC, id").map(token)
    }

    static func get(_ db: any SQLConnection, id: String) throws -> ManagementToken? {
        try db.queryOne("SELECT \(columns) FROM management_tokens WHERE id = ?", [.text(id)]).map(token)
    }

    /// The token whose secret hashes to `hash`, with the stored hash (to compare in constant time).
    static func get(_ db: any SQLConnection, tokenHash hash: [UInt8]) throws -> (token: ManagementToken, hash: [UInt8])? {
        try db.queryOne("SELECT \(columns), token_hash FROM management_tokens WHERE token_hash = ?", [.blob(hash)])
            .map { row in (token: try token(row), hash: try row.blob("token_hash")) }
    }

    static func revoke(_ db: any SQLConnection, id: String, now: Int64) throws {
        db.wrote(.managementTokens)
        try db.execute("UPDATE management_tokens SET revoked_at = ? WHERE id = ?", [.integer(now), .text(id)])
    }

    /// Bookkeeping (``CachedTables/bookkeeping``): declares nothing written.
    static func markUsed(_ db: any SQLConnection, id: String, now: Int64) throws {
        try db.execute("UPDATE management_tokens SET last_used_at = ? WHERE id = ?", [.integer(now), .text(id)])
    }

    static func token(_ row: Row) throws -> ManagementToken {
        guard let scope = ManagementToken.Scope(rawValue: try row.text("scope")) else {
            throw StorageError(.malformedRow, "management_tokens.scope is neither read nor write")
        }
        return ManagementToken(
            id: try row.text("id"),
            name: try row.text("name"),
            scope: scope,
            hint: try row.text("hint"),
            createdAt: try row.integer("created_at"),
            lastUsedAt: try row.optionalInteger("last_used_at"),
            revokedAt: try row.optionalInteger("revoked_at")
        )
    }
}
