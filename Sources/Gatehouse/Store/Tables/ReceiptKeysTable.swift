import GatehouseReceipts
import JSON
import Storage

/// The `receipt_keys` table: the receipt signing keys, each sealed under the master key, with its public JWK, when
/// it was retired (the current key has none) and when revoked.
enum ReceiptKeysTable {
    /// The current key's id, if there is one.
    static func currentKid(_ db: any SQLConnection) throws -> String? {
        try db.queryOne("SELECT kid FROM receipt_keys WHERE retired_at IS NULL")?.text("kid")
    }

    /// Retires the current key at `now`.
    static func retireCurrent(_ db: any SQLConnection, now: Int64) throws {
        db.wrote(.receiptKeys)
        try db.execute("UPDATE receipt_keys SET retired_at = ? WHERE retired_at IS NULL", [.integer(now)])
    }

    /// Revokes at `now` every key not revoked yet; returns their ids.
    static func revokeAll(_ db: any SQLConnection, now: Int64) throws -> [String] {
        db.wrote(.receiptKeys)
        return try db.query("UPDATE receipt_keys SET revoked_at = ? WHERE revoked_at IS NULL RETURNING kid", [.integer(now)]).map { try $0.text("kid") }
    }

    /// Inserts key `kid` as current.
    static func insert(_ db: any SQLConnection, kid: String, sealedPrivateKey: [UInt8], publicJWK: String, now: Int64) throws {
        db.wrote(.receiptKeys)
        try db.execute(
            "INSERT INTO receipt_keys (kid, sealed_private_key, public_jwk, created_at, retired_at) VALUES (?, ?, ?, ?, NULL)",
            [.text(kid), .blob(sealedPrivateKey), .text(publicJWK), .integer(now)])
    }

    /// The sealed private key of `kid`, if the key exists.
    static func sealedPrivateKey(_ db: any SQLConnection, kid: String) throws -> [UInt8]? {
        try db.queryOne("SELECT sealed_private_key FROM receipt_keys WHERE kid = ?", [.text(kid)])?.blob("sealed_private_key")
    }

    /// Every key, current first then by retirement, newest first.
    static func all(_ db: any SQLConnection) throws -> [ReceiptKeyRow] {
        try db.query("SELECT kid, public_jwk, retired_at, revoked_at FROM receipt_keys ORDER BY retired_at IS NOT NULL, retired_at DESC, kid").map { row in
            let kid = try row.text("kid")
            guard let json = try? JSONParser.parse(try row.text("public_jwk")), let jwk = try? PublicJWK(json: json) else {
                throw StorageError(.malformedRow, "receipt_keys.public_jwk of \(kid) is not a P-256 public JWK")
            }
            return ReceiptKeyRow(kid: kid, jwk: jwk, retiredAt: try row.optionalInteger("retired_at"), revokedAt: try row.optionalInteger("revoked_at"))
        }
    }
}
