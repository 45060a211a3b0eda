import Crypto
import JSON
import Storage

/// API keys per environment: list, create, roll with a grace period, revoke; and authenticating a secret key.
public struct APIKeys: Sendable {
    let store: Store

    /// Public keys by their value, for the device API (every request names one); follows the keys (deleting an
    /// environment declares its keys written). Whether a key is active is judged per request from its fields.
    let publicKeys: ReadCache<String, APIKey>
    /// When each environment's unrevoked secret keys expire (`Int64.max`: never), for the checklists' key count;
    /// follows the keys.
    let secretKeyExpiries: ReadCache<Int, [String: [Int64]]>
    /// Secret keys by the SHA-256 of their value, for the edge check (every proxied call presents one); follows the
    /// keys, so a revoked key is refused within a second on every server.
    let secretKeys: ReadCache<[UInt8], SecretKeyRow>

    /// The service over `store`: one per domain (``Domain``), as its caches follow the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store) {
        self.store = store
        publicKeys = store.cache(limit: 10_000, following: .apiKeys)
        secretKeyExpiries = store.cache(limit: 1, following: .apiKeys)
        secretKeys = store.cache(limit: 10_000, following: .apiKeys)
    }

    /// When each environment's unrevoked secret keys expire (`Int64.max`: never), by environment id.
    /// - Throws: `StorageError`.
    func secretKeyExpiriesByEnvironment() throws -> [String: [Int64]] {
        try secretKeyExpiries.value(0) { try store.read { db in try APIKeysTable.secretKeyExpiries(db) } } ?? [:]
    }

    /// Longest grace period of a rolled key.
    public static let maxGraceHours = 168

    public func list(environmentID: String) throws -> [APIKey] {
        try store.read { db in
            guard try EnvironmentsTable.exists(db, id: environmentID) else { throw DomainError.notFound("no environment \(environmentID)") }
            return try APIKeysTable.list(db, environmentID: environmentID)
        }
    }

    public func create(environmentID: String, type: APIKey.KeyType, name: String, actor: AuditActor) throws -> IssuedKey {
        let now = store.clock()
        return try store.write { db in
            let kind = try EnvironmentsTable.kind(db, id: environmentID)
            let issued = try Self.issue(db, environmentID: environmentID, kind: kind, type: type, name: name, now: now)
            try AuditLogTable.record(db, at: now, actor: actor, action: "key.create", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .null, after: .string("\(type.rawValue) key \(issued.key.id) (\(issued.key.hint))")),
            ])
            return issued
        }
    }

    /// Creates a key of the same type to replace `keyID`, which stays valid for `graceHours` (0 = ends now).
    public func roll(environmentID: String, keyID: String, graceHours: Int, actor: AuditActor) throws -> IssuedKey {
        guard (0...Self.maxGraceHours).contains(graceHours) else {
            throw ValidationError("/expiresInHours", "must be a whole number of hours from 0 to \(Self.maxGraceHours)")
        }
        let now = store.clock()
        return try store.write { db in
            let old = try Self.activeKey(db, environmentID: environmentID, keyID: keyID, now: now)
            let kind = try EnvironmentsTable.kind(db, id: environmentID)
            let expiresAt = now + Int64(graceHours) * 3600
            // Conditional: of two rolls of one key at once (through two servers), one replaces it and the other is a
            // conflict, as when it comes second.
            guard try APIKeysTable.expire(db, id: keyID, at: expiresAt) else {
                throw DomainError.conflict("key \(keyID) was already rolled or revoked; roll its replacement instead")
            }
            let issued = try Self.issue(db, environmentID: environmentID, kind: kind, type: old.type, name: old.name, now: now)
            try AuditLogTable.record(db, at: now, actor: actor, action: "key.roll", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .string("\(old.type.rawValue) key \(old.id) (\(old.hint))"),
                            after: .string("\(old.type.rawValue) key \(issued.key.id) (\(issued.key.hint)); the old one valid until \(Timestamp.format(expiresAt))")),
            ])
            return issued
        }
    }

    /// Revokes a key at once.
    public func revoke(environmentID: String, keyID: String, actor: AuditActor) throws {
        let now = store.clock()
        try store.write { db in
            guard let key = try APIKeysTable.get(db, id: keyID, environmentID: environmentID) else {
                throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
            }
            guard key.revokedAt == nil else { throw DomainError.conflict("key \(keyID) is already revoked") }
            try APIKeysTable.revoke(db, id: keyID, now: now)
            try AuditLogTable.record(db, at: now, actor: actor, action: "key.revoke", environmentID: environmentID, changes: [
                AuditChange(field: "keys", before: .string("\(key.type.rawValue) key \(key.id) (\(key.hint))"), after: .string("revoked")),
            ])
        }
    }

    /// The environment and key a presented secret key belongs to, when it is active; otherwise `DomainError.unauthenticated`.
    public func authenticateSecret(_ presented: String) throws -> APIKey {
        let hash = RandomToken.hash(presented)
        let now = store.clock()
        // Found by its hash (an unknown key is not cached), then compared in constant time.
        let found = try secretKeys.value(hash) { try store.read { db in try APIKeysTable.secretKey(db, hash: hash) }.map(SecretKeyRow.init) }
        guard let found, constantTimeEquals(found.hash, hash) else {
            throw DomainError.unauthenticated("unknown secret key")
        }
        let key = found.key
        guard key.isActive(at: now) else { throw DomainError.unauthenticated("this secret key is revoked or expired") }
        return key
    }

    static func activeKey(_ db: any SQLConnection, environmentID: String, keyID: String, now: Int64) throws -> APIKey {
        guard let key = try APIKeysTable.get(db, id: keyID, environmentID: environmentID) else {
            throw DomainError.notFound("no key \(keyID) in environment \(environmentID)")
        }
        guard key.revokedAt == nil, key.expiresAt == nil else {
            throw DomainError.conflict("key \(keyID) was already rolled or revoked; roll its replacement instead")
        }
        return key
    }

    /// Makes a key of `type` for an environment of `kind` and inserts it; the secret's value is returned only here.
    static func issue(_ db: any SQLConnection, environmentID: String, kind: EnvironmentKind, type: APIKey.KeyType, name: String, now: Int64) throws -> IssuedKey {
        let id = try RandomToken.identifier(prefix: "key_")
        let value = try RandomToken.secret(prefix: "\(type.prefix)_\(kind.keyMode)_")
        let hint = String(value.prefix(type.prefix.count + kind.keyMode.count + 2)) + "…" + String(value.suffix(4))
        let key = APIKey(id: id, environmentID: environmentID, type: type, name: name, publicValue: type == .public ? value : nil,
                         hint: hint, createdAt: now, expiresAt: nil, revokedAt: nil)
        try APIKeysTable.insert(db, key, secretHash: type == .secret ? RandomToken.hash(value) : nil)
        return IssuedKey(key: key, secret: type == .secret ? value : nil)
    }
}

/// A secret key as stored: the key and the SHA-256 of its value.
struct SecretKeyRow: Sendable {
    var key: APIKey
    var hash: [UInt8]
}
