/// A person who signs in to the dashboard, with a role: owners manage everything including admins, editors
/// manage environments, keys and tokens, viewers only read.
public struct Admin: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case owner, editor, viewer

        /// Whether the role may change environments, keys and tokens.
        public var canEdit: Bool { self != .viewer }
    }

    public var id: String
    public var email: String
    public var role: Role
    public var disabled: Bool
    public var createdAt: Int64
}
