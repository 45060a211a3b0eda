import Storage

/// The `api_keys` table: public keys by value, secret keys by the SHA-256 of their value (never the value), each
/// with its expiry (after a roll) and revocation.
enum APIKeysTable {
    /// The columns ``key(_:)`` reads.
    static let columns = "id, environment_id, type, name, public_value, hint, created_at, expires_at, revoked_at"

    /// The keys of an environment, oldest first.
    static func list(_ db: any SQLConnection, environmentID: String) throws -> [APIKey] {
        try db.query("SELECT \(columns) FROM api_keys WHERE environment_id = ? ORDER BY created_at, id", [.text(environmentID)]).map(key)
    }

    /// Key `id` of environment `environmentID`, if there is one.
    static func get(_ db: any SQLConnection, id: String, environmentID: String) throws -> APIKey? {
        try db.queryOne("SELECT \(columns) FROM api_keys WHERE id = ? AND environment_id = ?", [.text(id), .text(environmentID)]).map(key)
    }

    /// The public key whose value is `value`, if there is one.
    static func publicKey(_ db: any SQLConnection, value: String) throws -> APIKey? {
        try db.queryOne("SELECT \(columns) FROM api_keys WHERE public_value = ? AND type = 'public'", [.text(value)]).map(key)
    }

    /// The secret key whose value hashes to `hash`, with its stored hash (to compare in constant time).
    static func secretKey(_ db: any SQLConnection, hash: [UInt8]) throws -> (key: APIKey, hash: [UInt8])? {
        try db.queryOne("SELECT \(columns), secret_hash FROM api_keys WHERE secret_hash = ?", [.blob(hash)]).map { row in
            (try key(row), try row.blob("secret_hash"))
        }
    }

    /// When each environment's unrevoked secret keys expire (`Int64.max`: never).
    static func secretKeyExpiries(_ db: any SQLConnection) throws -> [String: [Int64]] {
        var expiries: [String: [Int64]] = [:]
        try db.forEachRow("SELECT environment_id, expires_at FROM api_keys WHERE type = 'secret' AND revoked_at IS NULL") { row in
            expiries[try row.text("environment_id"), default: []].append(try row.optionalInteger("expires_at") ?? .max)
        }
        return expiries
    }

    /// Inserts `key`, with the hash of its secret value for a secret key.
    static func insert(_ db: any SQLConnection, _ key: APIKey, secretHash: [UInt8]?) throws {
        db.wrote(.apiKeys)
        try db.execute(
            "INSERT INTO api_keys (id, environment_id, type, name, public_value, secret_hash, hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(key.id), .text(key.environmentID), .text(key.type.rawValue), .text(key.name), SQLValue(key.publicValue), SQLValue(secretHash),
             .text(key.hint), .integer(key.createdAt)]
        )
    }

    /// Lets key `id` expire at `expiresAt`.
    static func expire(_ db: any SQLConnection, id: String, at expiresAt: Int64) throws -> Bool {
        db.wrote(.apiKeys)
        return try db.execute("UPDATE api_keys SET expires_at = ? WHERE id = ? AND expires_at IS NULL AND revoked_at IS NULL",
                       [.integer(expiresAt), .text(id)]) == 1
    }

    /// Revokes key `id` at `now`.
    static func revoke(_ db: any SQLConnection, id: String, now: Int64) throws {
        db.wrote(.apiKeys)
        try db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [.integer(now), .text(id)])
    }

    static func key(_ row: Row) throws -> APIKey {
        guard let type = APIKey.KeyType(rawValue: try row.text("type")) else {
            throw StorageError(.malformedRow, "api_keys.type is neither public nor secret")
        }
        return APIKey(
            id: try row.text("id"),
            environmentID: try row.text("environment_id"),
            type: type,
            name: try row.text("name"),
            publicValue: try row.optionalText("public_value"),
            hint: try row.text("hint"),
            createdAt: try row.integer("created_at"),
            expiresAt: try row.optionalInteger("expires_at"),
            revokedAt: try row.optionalInteger("revoked_at")
        )
    }
}
