import JSON

/// One field's change in an audit entry. Secret values are written as `"[sealed]"`.
public struct AuditChange: Sendable, Equatable {
    public var field: String
    public var before: JSON
    public var after: JSON

    public init(field: String, before: JSON, after: JSON) {
        self.field = field
        self.before = before
        self.after = after
    }

    /// The marker that stands for a secret value.
    public static let sealed: JSON = "[sealed]"
}

/// A recorded change: who, when, what.
public struct AuditEntry: Sendable, Equatable {
    public var id: Int64
    public var at: Int64
    public var actor: AuditActor
    public var action: String
    public var environmentID: String?
    public var changes: JSON
}
