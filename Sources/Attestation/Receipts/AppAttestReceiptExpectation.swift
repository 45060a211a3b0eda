/// What a receipt must say to be accepted for a key: each member nil to leave it unchecked (`verify-receipt` without
/// `--app-id`, say).
public struct AppAttestReceiptExpectation: Sendable, Equatable {
    /// `ATTEST` at registration, `RECEIPT` after a refresh.
    public var type: String?
    /// The key's app id.
    public var appId: String?
    /// The attested key, its X9.62 point.
    public var attestedKey: [UInt8]?
    /// A receipt just received from Apple must have been made within this many seconds of the verification time.
    public var freshWithin: Int64?

    /// An expectation; every member optional.
    public init(type: String? = nil, appId: String? = nil, attestedKey: [UInt8]? = nil, freshWithin: Int64? = nil) {
        self.type = type
        self.appId = appId
        self.attestedKey = attestedKey
        self.freshWithin = freshWithin
    }

    /// The receipt inside a key's attestation.
    public static func attestation(appId: String, attestedKey: [UInt8]) -> AppAttestReceiptExpectation {
        AppAttestReceiptExpectation(type: AppAttestReceipt.attestType, appId: appId, attestedKey: attestedKey)
    }

    /// A receipt Apple has just returned for a key: made within five minutes of now (Apple's step 5).
    public static func refreshed(appId: String, attestedKey: [UInt8]) -> AppAttestReceiptExpectation {
        AppAttestReceiptExpectation(type: AppAttestReceipt.receiptType, appId: appId, attestedKey: attestedKey, freshWithin: 300)
    }
}
