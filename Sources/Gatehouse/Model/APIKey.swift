/// An environment's API key. Public keys (`pk_live_…`/`pk_test_…`) ship in apps and are always readable;
/// secret keys (`sk_live_…`/`sk_test_…`) are shown once at creation and stored as a hash.
public struct APIKey: Sendable, Equatable {
    public enum KeyType: String, Sendable, CaseIterable {
        case `public`, secret

        var prefix: String { self == .public ? "pk" : "sk" }
    }

    public var id: String
    public var environmentID: String
    public var type: KeyType
    public var name: String
    /// The whole key, for public keys only.
    public var publicValue: String?
    /// The start and end of the key, to tell keys apart without revealing a secret one.
    public var hint: String
    public var createdAt: Int64
    /// Set when the key was rolled: it stays valid until then.
    public var expiresAt: Int64?
    public var revokedAt: Int64?

    /// Whether the key is accepted at `now`.
    public func isActive(at now: Int64) -> Bool {
        revokedAt == nil && (expiresAt.map { $0 > now } ?? true)
    }

    /// "active", "expiring" (rolled, in its grace period), "expired" or "revoked".
    public func state(at now: Int64) -> String {
        if revokedAt != nil { return "revoked" }
        if let expiresAt { return expiresAt > now ? "expiring" : "expired" }
        return "active"
    }
}

/// A key as just created: for a secret key, `secret` holds the plaintext, returned this once and never again.
public struct IssuedKey: Sendable, Equatable {
    public var key: APIKey
    public var secret: String?
}
