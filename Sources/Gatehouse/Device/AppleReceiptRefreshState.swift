/// The receipt refresher's state of one environment (docs/device-api.md "Refresh"): shown on the Apps tab, in the
/// checklist and in the tally, never inside the environment's representation.
public struct AppleReceiptRefreshState: Sendable, Equatable {
    /// When the last pass ended (Unix seconds), nil before the first.
    public var lastPassAt: Int64?
    /// When Apple refused the DeviceCheck key (401/403): refreshes stop until the key changes.
    public var refusedAt: Int64?
    /// The status Apple answered then.
    public var refusedStatus: Int?

    public init(lastPassAt: Int64? = nil, refusedAt: Int64? = nil, refusedStatus: Int? = nil) {
        self.lastPassAt = lastPassAt
        self.refusedAt = refusedAt
        self.refusedStatus = refusedStatus
    }
}
