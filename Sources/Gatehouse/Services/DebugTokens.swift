import Crypto
import JSON
import Storage

/// Debug tokens (docs/device-api.md "Debug tokens"): create (the value returned once), list, revoke, and find the live
/// token a debug assessment brings. Creation and revocation are audited by id and name, never by value; a use is
/// written at most once a minute per token, so debug traffic does not turn every request into a write.
public struct DebugTokens: Sendable {
    let store: Store
    public static let prefix = "dt_"
    /// A new token's life when no expiry is given: 30 days.
    public static let defaultLifetime: Int64 = 30 * 86_400
    /// The longest life a token may be given: 365 days.
    public static let maxLifetime: Int64 = 365 * 86_400
    /// The most active (unrevoked, unexpired) tokens an environment holds.
    public static let maxActive = 20
    /// How stale a token's last-used time may get before a use writes it.
    public static let lastUsedResolution: Int64 = 60

    /// Tokens (with their stored hash) by the hash of their value, for debug assessments; follows the tokens (deleting
    /// an environment declares its tokens written).
    let byHash: ReadCache<[UInt8], (token: DebugToken, hash: [UInt8])>
    /// Every unrevoked token, for the checklists (which judge expiry at their now); follows the tokens.
    let unrevoked: ReadCache<Int, [DebugToken]>

    /// The service over `store`: one per domain (``Domain``), as its caches follow the store's writes for as long as
    /// the store lives.
    init(_: Wiring, store: Store) {
        self.store = store
        byHash = store.cache(limit: 10_000, following: .debugTokens)
        unrevoked = store.cache(limit: 1, following: .debugTokens)
    }

    /// A new token of `environmentID` named `name`, live until `expiresAt` (unix seconds; nil: 30 days from now).
    /// The token's value is returned only here.
    /// - Throws: `ValidationError` naming `/name` or `/expiresAt`; `DomainError.notFound` (no such environment),
    ///   `.conflict` (already `maxActive` active tokens); `DomainError.unavailable`.
    public func create(environmentID: String, name: String, expiresAt: Int64?, actor: AuditActor) throws -> (token: DebugToken, value: String) {
        let now = store.clock()
        var errors = FieldErrors()
        let name = EnvironmentFields.name(name, at: "/name", errors: &errors)
        let expiry = expiresAt ?? now + Self.defaultLifetime
        if expiry <= now {
            errors.add("/expiresAt", "must be in the future (at most 365 days ahead)")
        } else if expiry > now + Self.maxLifetime {
            errors.add("/expiresAt", "must be at most 365 days ahead")
        }
        try errors.throwIfAny()
        guard let name else { throw ValidationError(errors.errors) }
        let value = Self.prefix + Base64.encode(try SecureRandom.bytes(32), alphabet: .urlSafe, padded: false)
        let token = DebugToken(id: try RandomToken.identifier(prefix: "dbg_"), environmentID: environmentID, name: name,
                               createdAt: now, expiresAt: expiry, lastUsedAt: nil, revokedAt: nil)
        try store.write { db in
            // Creations count the active tokens one at a time across servers (the debug tokens' revision row): on
            // READ COMMITTED parallel creations would each count 19 and pass the cap together.
            try RevisionsTable.lock(db, .debugTokens)
            guard try EnvironmentsTable.exists(db, id: environmentID) else { throw DomainError.notFound("no environment \(environmentID)") }
            guard try DebugTokensTable.activeCount(db, environmentID: environmentID, now: now) < Self.maxActive else {
                throw DomainError.conflict("this environment already has \(Self.maxActive) active debug tokens: revoke one you no longer use first")
            }
            try DebugTokensTable.insert(db, token, tokenHash: RandomToken.hash(value), createdBy: actor.id)
            try AuditLogTable.record(db, at: now, actor: actor, action: "debugToken.create", environmentID: environmentID, changes: [
                AuditChange(field: "debugTokens", before: .null, after: .string("debug token \(token.id) \"\(name)\" until \(Timestamp.format(expiry))")),
            ])
        }
        return (token, value)
    }

    /// The environment's tokens, newest first (values never: they are not kept).
    /// - Throws: `DomainError.notFound` when there is no such environment.
    public func list(environmentID: String) throws -> [DebugToken] {
        try store.read { db in
            guard try EnvironmentsTable.exists(db, id: environmentID) else { throw DomainError.notFound("no environment \(environmentID)") }
            return try DebugTokensTable.list(db, environmentID: environmentID)
        }
    }

    /// Revokes a token at once (the next assessment that brings it is forged `debugTokenInvalid`); returns it as it was.
    /// - Throws: `DomainError.notFound` (no such token in the environment), `.conflict` (already revoked).
    @discardableResult
    public func revoke(environmentID: String, tokenID: String, actor: AuditActor) throws -> DebugToken {
        let now = store.clock()
        return try store.write { db in
            guard let token = try DebugTokensTable.get(db, id: tokenID, environmentID: environmentID) else {
                throw DomainError.notFound("no debug token \(tokenID) in environment \(environmentID)")
            }
            guard try DebugTokensTable.revoke(db, id: tokenID, now: now) else {
                throw DomainError.conflict("debug token \(tokenID) is already revoked")
            }
            try AuditLogTable.record(db, at: now, actor: actor, action: "debugToken.revoke", environmentID: environmentID, changes: [
                AuditChange(field: "debugTokens", before: .string("debug token \(token.id) \"\(token.name)\""), after: .string("revoked")),
            ])
            return token
        }
    }

    /// The live token of `environmentID` whose value is `presented`, or nil (unknown, revoked, expired, another
    /// environment's). Looked up by hash (cached until a token changes) and compared in constant time.
    func live(_ presented: String, environmentID: String, now: Int64) throws -> DebugToken? {
        guard presented.hasPrefix(Self.prefix) else { return nil }
        let hash = RandomToken.hash(presented)
        let found = try byHash.value(hash) {
            try store.read { db in try DebugTokensTable.get(db, tokenHash: hash) }
        }
        guard let found, constantTimeEquals(found.hash, hash), found.token.environmentID == environmentID,
              found.token.isActive(at: now)
        else { return nil }
        return found.token
    }

    /// Commits `nonce` (the assessment's) with the use of `live` (the token `presented` names; nil: none), writing its
    /// last-used time when this use is the one to (at most once a minute).
    /// - Throws: `NonceSpend.Refused` when the nonce was spent before (nothing committed); `StorageError`.
    func use(_ live: DebugToken?, presented: String, now: Int64, after nonce: inout NonceSpend) throws {
        guard let live, claimUse(live, presented: presented, now: now) else {
            try nonce.commitAlone(store)
            return
        }
        let id = live.id
        try nonce.commit(store) { db in try DebugTokensTable.markUsed(db, id: id, now: now) }
    }

    /// Whether this use of `token` is the one to write its last-used time: its first, or the first a minute after
    /// the last written. Claimed under the cache's lock, so concurrent uses write it once.
    func claimUse(_ token: DebugToken, presented: String, now: Int64) -> Bool {
        func due(_ token: DebugToken) -> Bool { token.lastUsedAt.map { now - $0 >= Self.lastUsedResolution } ?? true }
        guard due(token) else { return false }
        return byHash.modify(RandomToken.hash(presented)) { cached in
            guard due(cached.token) else { return false }
            cached.token.lastUsedAt = now
            return true
        } ?? true
    }

    /// The names of each environment's tokens active at `now`, oldest first (for the checklist and the Overview).
    /// - Throws: `DomainError.unavailable`.
    public func activeNames(now: Int64) throws -> [String: [String]] {
        let tokens = try unrevoked.value(0) {
            try store.read { db in try DebugTokensTable.unrevoked(db) }
        } ?? []
        var names: [String: [String]] = [:]
        for token in tokens where token.isActive(at: now) { names[token.environmentID, default: []].append(token.name) }
        return names
    }
}
