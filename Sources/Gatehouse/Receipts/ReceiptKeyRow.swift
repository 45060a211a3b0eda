import GatehouseReceipts

/// One row of `receipt_keys` as the JWKS needs it (no private half).
struct ReceiptKeyRow: Sendable, Equatable {
    var kid: String
    var jwk: PublicJWK
    /// When it was retired (unix seconds); nil for the current key.
    var retiredAt: Int64?
    /// When it was revoked (unix seconds): no longer published; nil unless revoked.
    var revokedAt: Int64?
}
