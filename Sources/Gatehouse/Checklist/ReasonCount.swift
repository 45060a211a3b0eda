/// How many verdicts of a provider carried a reason over the window.
public struct ReasonCount: Sendable, Equatable {
    /// `"play-integrity"` or `"app-attest"`.
    public var provider: String
    /// The reason, as verdicts carry it.
    public var reason: String
    /// Verdicts that carried it (every failing status).
    public var count: Int
    /// Whether the reason points to the setup (``SetupReason``) rather than to devices.
    public var setup: Bool

    /// Creates a reason count.
    public init(provider: String, reason: String, count: Int, setup: Bool) {
        self.provider = provider
        self.reason = reason
        self.count = count
        self.setup = setup
    }
}
