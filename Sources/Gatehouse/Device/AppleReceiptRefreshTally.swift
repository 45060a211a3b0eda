import JSON

/// What one refresh pass did (`POST …/app-attest/refresh-receipts` answers it): keys tried and how Apple answered.
public struct AppleReceiptRefreshTally: Sendable, Equatable {
    /// Keys whose receipt was sent to Apple.
    public var tried = 0
    /// 200 with a receipt that was accepted: stored, with its risk metric.
    public var refreshed = 0
    /// 304: the receipt is unchanged (asked before its not-before).
    public var unchanged = 0
    /// 404: Apple holds no data for the device now (it keeps 30 days); the receipt is kept.
    public var noData = 0
    /// 401/403: Apple refused the DeviceCheck key.
    public var refused = 0
    /// Anything else: 429, 5xx, unreachable, a receipt that was not accepted.
    public var failed = 0

    public init() {}

    /// `{"tried", "refreshed", "unchanged", "noData", "refused", "failed"}`.
    public var json: JSON {
        .object([.init("tried", .int(Int64(tried))), .init("refreshed", .int(Int64(refreshed))), .init("unchanged", .int(Int64(unchanged))),
                 .init("noData", .int(Int64(noData))), .init("refused", .int(Int64(refused))), .init("failed", .int(Int64(failed)))])
    }

    mutating func add(_ result: AppleReceiptRefreshResult) {
        tried += 1
        switch result {
        case .refreshed: refreshed += 1
        case .unchanged: unchanged += 1
        case .noData: noData += 1
        case .refused: refused += 1
        case .failed: failed += 1
        }
    }
}

/// How one key's refresh ended (the `result` label of `gatehouse_app_attest_receipt_refresh_total`).
public enum AppleReceiptRefreshResult: String, Sendable, CaseIterable {
    case refreshed, unchanged, noData, refused, failed
}
