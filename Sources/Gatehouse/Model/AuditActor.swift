/// Who made a change, for the audit log: an admin in the browser, a management token, or Gatehouse itself.
public struct AuditActor: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case admin, token, system
    }

    public var kind: Kind
    public var id: String?
    public var name: String?

    public init(kind: Kind, id: String?, name: String?) {
        self.kind = kind
        self.id = id
        self.name = name
    }

    public static let system = AuditActor(kind: .system, id: nil, name: "gatehouse")
}
