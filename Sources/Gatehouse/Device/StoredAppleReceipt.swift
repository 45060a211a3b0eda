/// A receipt accepted for a key, as stored beside it: its bytes (what the next refresh sends Apple) and the times
/// read from it.
struct StoredAppleReceipt: Sendable, Equatable {
    var bytes: [UInt8]
    /// Apple gives no new receipt before this (Unix seconds; nil: at once).
    var notBefore: Int64?
    /// Apple no longer trades it after this (Unix seconds).
    var expiresAt: Int64?
}
