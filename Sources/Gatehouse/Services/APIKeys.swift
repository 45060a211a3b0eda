import Crypto
import JSON
import Storage

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
            return try db.query("SELECT \(Self.columns) FROM api_keys WHERE environment_id = ? ORDER BY created_at, id", [.text(environmentID)]).map(Self.key)
        }
    }

    public func create(environmentID: String, type: APIKey.KeyType, name: String, actor: Actor) throws -> IssuedKey {
        let now = store.clock()
        defer { store.secretKeyExpiries.invalidate(); store.publicKeys.invalidate() }
        return try store.write { db in
            let kind = try Self.environmentKind(db, environmentID)
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
            let kind = try Self.environmentKind(db, environmentID)
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
            guard let row = try db.queryOne("SELECT \(Self.columns) FROM api_keys WHERE id = ? AND environment_id = ?", [.text(keyID), .text(environmentID)]) else {
                throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
            }
            let key = try Self.key(row)
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
        let row = try store.read { db in try db.queryOne("SELECT \(Self.columns), secret_hash FROM api_keys WHERE secret_hash = ?", [.blob(hash)]) }
        guard let row, let stored = try row.optionalBlob("secret_hash"), constantTimeEquals(stored, hash) else {
            throw DomainError.unauthenticated("unknown secret key")
        }
        let key = try Self.key(row)
        guard key.isActive(at: now) else { throw DomainError.unauthenticated("this secret key is revoked or expired") }
        return key
    }

    static func activeKey(_ db: any SQLConnection, environmentID: String, keyID: String, now: Int64) throws -> APIKey {
        guard let row = try db.queryOne("SELECT \(Self.columns) FROM api_keys WHERE id = ? AND environment_id = ?", [.text(keyID), .text(environmentID)]) else {
            throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
        }
        let key = try Self.key(row)
        guard key.revokedAt == nil, key.expiresAt == nil else {
            throw DomainError.conflict("key \(keyID) was already rolled or revoked; roll its replacement instead")
        }
        return key
    }

    static func insert(_ db: any SQLConnection, environmentID: String, kind: EnvironmentKind, type: APIKey.KeyType, name: String, now: Int64) throws -> IssuedKey {
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

    /// The kind of environment `environmentID`; `DomainError.notFound` when there is none.
    static func environmentKind(_ db: any SQLConnection, _ environmentID: String) throws -> EnvironmentKind {
        guard let row = try db.queryOne("SELECT kind FROM environments WHERE id = ?", [.text(environmentID)]) else {
            throw DomainError.notFound("no environment \(environmentID)")
        }
        guard let kind = EnvironmentKind(rawValue: try row.text("kind")) else {
            throw StorageError(.malformedRow, "environments.kind is neither production nor development")
        }
        return kind
    }

    /// The columns ``key(_:)`` reads.
    static let columns = "id, environment_id, type, name, public_value, hint, created_at, expires_at, revoked_at"

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
