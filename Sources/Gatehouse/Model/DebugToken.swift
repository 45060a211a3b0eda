/// A debug token (docs/device-api.md "Debug tokens"): a named, expiring way in for an environment's own simulators,
/// emulators and CI builds, brought to `/api/v4/assess` as `{"provider": "debug", "token": "dt_…"}` in place of a
/// platform attestation. The token itself is shown once at creation and stored as a hash: this value never holds it.
public struct DebugToken: Sendable, Equatable {
    /// `dbg_…`.
    public var id: String
    public var environmentID: String
    public var name: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// When a debug assessment last used it (written at its first use, then at most once a minute); nil: never.
    public var lastUsedAt: Int64?
    public var revokedAt: Int64?

    /// Whether the token lets a request in at `now`: not revoked and not expired.
    public func isActive(at now: Int64) -> Bool {
        revokedAt == nil && expiresAt > now
    }

    /// "active", "expired" or "revoked".
    public func state(at now: Int64) -> String {
        if revokedAt != nil { return "revoked" }
        return expiresAt > now ? "active" : "expired"
    }
}
