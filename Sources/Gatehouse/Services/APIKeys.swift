import Crypto
import JSON
import SQLite

/// API keys per environment: list, create, roll with a grace period, revoke; and authenticating a secret key.
public struct APIKeys: Sendable {
    let store: Store

    public init(store: Store) {
        self.store = store
    }

    /// Longest grace period of a rolled key.
    public static let maxGraceHours = 168

    public func list(environmentID: String) throws -> [APIKey] {
        try store.read { db in
            guard try db.queryOne("SELECT 1 FROM environments WHERE id = ?", [.text(environmentID)]) != nil else {
                throw DomainError.notFound("no environment \(environmentID)")
            }
            return try db.query("SELECT * FROM api_keys WHERE environment_id = ? ORDER BY created_at, id", [.text(environmentID)]).map(Self.key)
        }
    }

    public func create(environmentID: String, type: APIKey.KeyType, name: String, actor: Actor) throws -> IssuedKey {
        let now = store.clock()
        defer { store.secretKeyExpiries.invalidate(); store.publicKeys.invalidate() }
        return try store.write { db in
            guard let row = try db.queryOne("SELECT kind FROM environments WHERE id = ?", [.text(environmentID)]),
                  let kind = EnvironmentKind(rawValue: row["kind"].string ?? "")
            else { throw DomainError.notFound("no environment \(environmentID)") }
            let issued = try Self.insert(db, environmentID: environmentID, kind: kind, type: type, name: name, now: now)
            try AuditLog.record(db, at: now, actor: actor, action: "key.create", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .null, after: .string("\(type.rawValue) key \(issued.key.id) (\(issued.key.hint))")),
            ])
            return issued
        }
    }

    /// Creates a key of the same type to replace `keyID`, which stays valid for `graceHours` (0 = ends now).
    public func roll(environmentID: String, keyID: String, graceHours: Int, actor: Actor) throws -> IssuedKey {
        guard (0...Self.maxGraceHours).contains(graceHours) else {
            throw ValidationError("/expiresInHours", "must be a whole number of hours from 0 to \(Self.maxGraceHours)")
        }
        let now = store.clock()
        defer { store.secretKeyExpiries.invalidate(); store.publicKeys.invalidate() }
        return try store.write { db in
            let old = try Self.activeKey(db, environmentID: environmentID, keyID: keyID, now: now)
            guard let row = try db.queryOne("SELECT kind FROM environments WHERE id = ?", [.text(environmentID)]),
                  let kind = EnvironmentKind(rawValue: row["kind"].string ?? "")
            else { throw DomainError.notFound("no environment \(environmentID)") }
            let expiresAt = now + Int64(graceHours) * 3600
            try db.execute("UPDATE api_keys SET expires_at = ? WHERE id = ?", [.integer(expiresAt), .text(keyID)])
            let issued = try Self.insert(db, environmentID: environmentID, kind: kind, type: old.type, name: old.name, now: now)
            try AuditLog.record(db, at: now, actor: actor, action: "key.roll", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .string("\(old.type.rawValue) key \(old.id) (\(old.hint))"),
                            after: .string("\(old.type.rawValue) key \(issued.key.id) (\(issued.key.hint)); the old one valid until \(Timestamp.format(expiresAt))")),
            ])
            return issued
        }
    }

    /// Revokes a key at once.
    public func revoke(environmentID: String, keyID: String, actor: Actor) throws {
        let now = store.clock()
        defer { store.secretKeyExpiries.invalidate(); store.publicKeys.invalidate() }
        try store.write { db in
            guard let row = try db.queryOne("SELECT * FROM api_keys WHERE id = ? AND environment_id = ?", [.text(keyID), .text(environmentID)]) else {
                throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
            }
            let key = Self.key(row)
            guard key.revokedAt == nil else { throw DomainError.conflict("key \(keyID) is already revoked") }
            try db.execute("UPDATE api_keys SET revoked_at = ? WHERE id = ?", [.integer(now), .text(keyID)])
            try AuditLog.record(db, at: now, actor: actor, action: "key.revoke", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .string("\(key.type.rawValue) key \(key.id) (\(key.hint))"), after: .string("revoked")),
            ])
        }
    }

    /// The environment and key a presented secret key belongs to, when it is active; otherwise `DomainError.unauthenticated`.
    public func authenticateSecret(_ presented: String) throws -> APIKey {
        let hash = RandomToken.hash(presented)
        let now = store.clock()
        let row = try store.read { db in try db.queryOne("SELECT * FROM api_keys WHERE secret_hash = ?", [.blob(hash)]) }
        guard let row, let stored = row["secret_hash"].bytes, constantTimeEquals(stored, hash) else {
            throw DomainError.unauthenticated("unknown secret key")
        }
        let key = Self.key(row)
        guard key.isActive(at: now) else { throw DomainError.unauthenticated("this secret key is revoked or expired") }
        return key
    }

    static func activeKey(_ db: Connection, environmentID: String, keyID: String, now: Int64) throws -> APIKey {
        guard let row = try db.queryOne("SELECT * FROM api_keys WHERE id = ? AND environment_id = ?", [.text(keyID), .text(environmentID)]) else {
            throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
        }
        let key = Self.key(row)
        guard key.revokedAt == nil, key.expiresAt == nil else {
            throw DomainError.conflict("key \(keyID) was already rolled or revoked; roll its replacement instead")
        }
        return key
    }

    static func insert(_ db: Connection, environmentID: String, kind: EnvironmentKind, type: APIKey.KeyType, name: String, now: Int64) throws -> IssuedKey {
        let id = try RandomToken.identifier(prefix: "key_")
        let value = try RandomToken.secret(prefix: "\(type.prefix)_\(kind.keyMode)_")
        let hint = String(value.prefix(type.prefix.count + kind.keyMode.count + 2)) + "…" + String(value.suffix(4))
        try db.execute(
            "INSERT INTO api_keys (id, environment_id, type, name, public_value, secret_hash, hint, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [.text(id), .text(environmentID), .text(type.rawValue), .text(name),
             type == .public ? .text(value) : .null, type == .secret ? .blob(RandomToken.hash(value)) : .null,
             .text(hint), .integer(now)]
        )
        let key = APIKey(id: id, environmentID: environmentID, type: type, name: name, publicValue: type == .public ? value : nil,
                         hint: hint, createdAt: now, expiresAt: nil, revokedAt: nil)
        return IssuedKey(key: key, secret: type == .secret ? value : nil)
    }

    static func key(_ row: Row) -> APIKey {
        APIKey(
            id: row["id"].string ?? "",
            environmentID: row["environment_id"].string ?? "",
            type: APIKey.KeyType(rawValue: row["type"].string ?? "") ?? .public,
            name: row["name"].string ?? "",
            publicValue: row["public_value"].string,
            hint: row["hint"].string ?? "",
            createdAt: row["created_at"].int64 ?? 0,
            expiresAt: row["expires_at"].int64,
            revokedAt: row["revoked_at"].int64
        )
    }
}
