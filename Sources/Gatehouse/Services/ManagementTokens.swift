import Crypto
import Storage

/// Management tokens: create (plaintext returned once), list, revoke, authenticate.
/// Last-used times are written at most once a minute per token, so reads do not turn into writes.
public struct ManagementTokens: Sendable {
    let store: Store
    public static let prefix = "gtm_"
    /// How stale a token's last-used time may get before a use writes it.
    public static let lastUsedResolution: Int64 = 60

    /// Tokens (with their stored hash) by the hash of their secret; follows the tokens.
    let byHash: ReadCache<[UInt8], (token: ManagementToken, hash: [UInt8])>

    /// The service over `store`: one per domain (``Domain``), as its cache follows the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store) {
        self.store = store
        byHash = store.cache(limit: 10_000, following: .managementTokens)
    }

    public func create(name: String, scope: ManagementToken.Scope, actor: AuditActor) throws -> (token: ManagementToken, secret: String) {
        var errors = FieldErrors()
        guard let name = EnvironmentFields.name(name, at: "/name", errors: &errors) else { throw ValidationError(errors.errors) }
        let now = store.clock()
        let id = try RandomToken.identifier(prefix: "tok_")
        let secret = try RandomToken.secret(prefix: Self.prefix)
        let token = ManagementToken(id: id, name: name, scope: scope, hint: "…" + String(secret.suffix(4)), createdAt: now, lastUsedAt: nil, revokedAt: nil)
        try store.write { db in
            try ManagementTokensTable.insert(db, token, tokenHash: RandomToken.hash(secret), createdBy: actor.id)
            try AuditLogTable.record(db, at: now, actor: actor, action: "token.create", environmentID: nil, changes: [
                AuditChange(field: "tokens", before: .null, after: .string("\(scope.rawValue) token \(id) \"\(name)\"")),
            ])
        }
        return (token, secret)
    }

    public func list() throws -> [ManagementToken] {
        try store.read { db in
            try ManagementTokensTable.all(db)
        }
    }

    public func revoke(_ id: String, actor: AuditActor) throws {
        let now = store.clock()
        try store.write { db in
            guard let token = try ManagementTokensTable.get(db, id: id) else {
                throw DomainError.notFound("no token \(id)")
            }
            guard token.revokedAt == nil else { throw DomainError.conflict("token \(id) is already revoked") }
            try ManagementTokensTable.revoke(db, id: id, now: now)
            try AuditLogTable.record(db, at: now, actor: actor, action: "token.revoke", environmentID: nil, changes: [
                AuditChange(field: "tokens", before: .string("token \(id)"), after: .string("revoked")),
            ])
        }
    }

    /// The token a bearer credential names, when it is valid; otherwise `DomainError.unauthenticated`.
    /// A token seen before is answered from memory (see `ReadCache`); its last-used time is still written, at most
    /// once per `lastUsedResolution`.
    public func authenticate(_ presented: String) throws -> ManagementToken {
        guard presented.hasPrefix(Self.prefix) else { throw DomainError.unauthenticated("not a Gatehouse management token") }
        let hash = RandomToken.hash(presented)
        let found = try byHash.value(hash) {
            try store.read { db in try ManagementTokensTable.get(db, tokenHash: hash) }
        }
        guard let found, constantTimeEquals(found.hash, hash) else { throw DomainError.unauthenticated("unknown token") }
        let token = found.token
        guard token.revokedAt == nil else { throw DomainError.unauthenticated("this token was revoked") }
        let now = store.clock()
        // A stale last-used time is claimed under the cache's lock, so concurrent uses of the token write it once.
        if now - (token.lastUsedAt ?? 0) >= Self.lastUsedResolution, byHash.modify(hash, { cached in
            guard now - (cached.token.lastUsedAt ?? 0) >= Self.lastUsedResolution else { return false }
            cached.token.lastUsedAt = now
            return true
        }) ?? true {
            try store.write { db in
                try ManagementTokensTable.markUsed(db, id: token.id, now: now)
            }
        }
        return token
    }

}
