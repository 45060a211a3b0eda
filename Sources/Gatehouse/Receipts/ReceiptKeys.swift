import Crypto
import GatehouseReceipts
import JSON
import Storage

/// The server's receipt signing keys (table `receipt_keys`): made on first start, sealed under the master key,
/// rotated by `gatehouse receipts rotate-key`; the current key and those retired within the last hour make the JWKS,
/// save those revoked (`--revoke-now`).
///
/// Reads are cached for ``refreshSeconds`` so a JWKS or a verification costs no query; a rotation in this process
/// takes effect at once, one made by the CLI in another process within ``refreshSeconds``.
public struct ReceiptKeys: Sendable {
    let store: Store
    let cache = ReceiptKeyCache()

    /// How long a retired key stays published, in seconds (docs/device-api.md: an hour).
    public static let retiredKeyLifetime: Int64 = 3600
    /// How long the keys read are kept, in seconds: a key revoked by the CLI in another process stops verifying within
    /// it (the edge check promises 10 seconds for a receipt it remembered; half that leaves room on a loaded machine).
    public static let refreshSeconds: Int64 = 5

    /// The keys of `store`; a write to them in this process is seen at once (the cache follows the table).
    init(_: Wiring, store: Store) {
        self.store = store
        store.follow(.receiptKeys, cache.invalidate)
    }

    /// Makes the first key when there is no current one (a first start); returns the current key's id.
    ///
    /// - Throws: `StorageError`, or `CryptoError` when a key cannot be made or sealed.
    @discardableResult
    public func prepare() throws -> String {
        if let current = try rows().first(where: { $0.retiredAt == nil }) { return current.kid }
        let now = store.clock()
        do {
            return try store.write { db in
                if let kid = try ReceiptKeysTable.currentKid(db) { return kid }
                return try insertKey(db, now: now)
            }
        } catch DomainError.conflict {
            // Another server, starting on the same empty database, made the first key meanwhile (one current key is a
            // unique index): every server publishes that one.
            guard let kid = try store.read({ db in try ReceiptKeysTable.currentKid(db) }) else { throw DomainError.conflict("no current receipt key after a conflict") }
            return kid
        }
    }

    /// Retires the current key (still published for ``retiredKeyLifetime``) and makes a new current one. With
    /// `revokeNow` (a key that leaked), the retired key and every key retired before it leave the JWKS at once, so
    /// receipts they signed stop verifying. Returns the new key's id and the retired one's (nil when there was none).
    ///
    /// - Throws: `StorageError`, or `CryptoError` when a key cannot be made or sealed.
    public func rotate(revokeNow: Bool = false) throws -> (current: String, retired: String?) {
        let now = store.clock()
        let result = try store.write { db in
            let retired = try ReceiptKeysTable.currentKid(db)
            try ReceiptKeysTable.retireCurrent(db, now: now)
            var changes = [AuditChange(field: "receiptKey", before: .optional(retired), after: .null)]
            if revokeNow {
                let revoked = try ReceiptKeysTable.revokeAll(db, now: now)
                changes.append(AuditChange(field: "revokedKeys", before: .null, after: .array(revoked.sorted().map { .string($0) })))
            }
            let current = try insertKey(db, now: now)
            changes[0] = AuditChange(field: "receiptKey", before: .optional(retired), after: .string(current))
            try AuditLogTable.record(db, at: now, actor: .system, action: revokeNow ? "receipts.rotate-key.revoke" : "receipts.rotate-key",
                                environmentID: nil, changes: changes)
            return (current, retired)
        }
        return result
    }

    /// The JWKS at the store's time: the current key, then the keys retired less than an hour ago, newest first.
    /// Made once per ``refreshSeconds`` (its keys parsed once for verification), so a retired key leaves it at most
    /// that late.
    ///
    /// - Throws: `StorageError` when the keys cannot be read.
    public func published() throws -> JWKS {
        let now = store.clock()
        let rows = try rows()
        if let cached = cache.published(now: now, ttl: Self.refreshSeconds) { return cached }
        let jwks = JWKS(keys: rows.filter { row in
            row.revokedAt == nil && (row.retiredAt.map { now - $0 < Self.retiredKeyLifetime } ?? true)
        }.map(\.jwk))
        cache.keep(jwks, at: now)
        return jwks
    }

    /// The current key's id (nil before `prepare` ran), for the dashboard.
    ///
    /// - Throws: `StorageError` when the keys cannot be read.
    public func currentKeyID() throws -> String? {
        try rows().first { $0.retiredAt == nil }?.kid
    }

    /// A signer with the current key (opened once per key and kept).
    ///
    /// - Throws: `StorageError`; `CryptoError` when the sealed key does not open under this master key;
    ///   `DomainError.conflict` when there is no current key (`prepare` never ran).
    func signer() throws -> ReceiptSigner {
        guard let current = try rows().first(where: { $0.retiredAt == nil }) else {
            throw DomainError.conflict("there is no receipt signing key yet")
        }
        if let signer = cache.signer(kid: current.kid) { return signer }
        let sealed = try store.read { db in
            try ReceiptKeysTable.sealedPrivateKey(db, kid: current.kid)
        }
        guard let sealed else { throw DomainError.conflict("receipt key \(current.kid) is gone") }
        let der = try store.box.open(sealed, associatedData: Self.associatedData(kid: current.kid))
        let signer = ReceiptSigner(privateKey: try ECPrivateKey(pkcs8DER: der), kid: current.kid)
        cache.keep(signer)
        return signer
    }

    /// Every key row, current first then by retirement, newest first; cached for ``refreshSeconds``.
    func rows() throws -> [ReceiptKeyRow] {
        let now = store.clock()
        if let rows = cache.rows(now: now, ttl: Self.refreshSeconds) { return rows }
        let rows = try store.read { db in try ReceiptKeysTable.all(db) }
        cache.store(rows, at: now)
        return rows
    }

    /// Makes a key, seals it and inserts it as current; returns its id.
    private func insertKey(_ db: any SQLConnection, now: Int64) throws -> String {
        let key = try ECPrivateKey.generate()
        let kid = PublicJWK(publicKey: key.publicKey).thumbprint
        let jwk = PublicJWK(publicKey: key.publicKey, kid: kid)
        let sealed = try store.box.seal(key.pkcs8DER, associatedData: Self.associatedData(kid: kid))
        try ReceiptKeysTable.insert(db, kid: kid, sealedPrivateKey: sealed, publicJWK: jwk.json.text, now: now)
        return kid
    }

    /// What a sealed key is bound to, so a sealed blob cannot be moved to another key's row.
    static func associatedData(kid: String) -> [UInt8] {
        Array("receipt-key:\(kid)".utf8)
    }
}
