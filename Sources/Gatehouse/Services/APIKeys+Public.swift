import Storage

extension APIKeys {
    /// The key a presented public key (`pk_live_…`, `pk_test_…`) is, when it is active; otherwise
    /// `DomainError.unauthenticated`. Public keys identify an environment and prove nothing (they ship in apps).
    /// - Throws: `DomainError.unauthenticated`, `StorageError`.
    public func authenticatePublic(_ presented: String) throws -> APIKey {
        guard presented.hasPrefix("pk_"), presented.utf8.count <= 200 else {
            throw DomainError.unauthenticated("apiKey is not one of this server's public keys (pk_live_… or pk_test_…)")
        }
        let now = store.clock()
        let found = try publicKeys.value(presented) {
            try store.read { db in try APIKeysTable.publicKey(db, value: presented) }
        }
        guard let key = found else { throw DomainError.unauthenticated("apiKey is not one of this server's public keys") }
        guard key.isActive(at: now) else { throw DomainError.unauthenticated("this public key is revoked or expired") }
        return key
    }
}
