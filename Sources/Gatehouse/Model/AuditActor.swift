/// Who made a change, for the audit log: an admin in the browser, a management token, or Gatehouse itself.
public struct AuditActor: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case admin, token, system
    }

    public var kind: Kind
    public var id: String?
    public var name: String?
    /// Where the change came from, when it came through the dashboard (told by security events, not kept in the log).
    public var address: String?

    public init(kind: Kind, id: String?, name: String?, address: String? = nil) {
        self.kind = kind
        self.id = id
        self.name = name
        self.address = address
    }

    public static let system = AuditActor(kind: .system, id: nil, name: "gatehouse")
}
