/// A token for automation over the management API (`Authorization: Bearer gtm_…`), scoped read or write.
/// Shown once at creation; stored as a hash.
public struct ManagementToken: Sendable, Equatable {
    public enum Scope: String, Sendable, CaseIterable {
        case read, write
    }

    public var id: String
    public var name: String
    public var scope: Scope
    public var hint: String
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    public var revokedAt: Int64?
}
