/// What an App Attest receipt says (Apple's "Assessing fraud risk"): the `ATTEST` receipt inside an attestation, or
/// a `RECEIPT` Apple returns for it, each a signed `SET OF SEQUENCE { type INTEGER, version INTEGER, value OCTET
/// STRING }`. Times are read from the fields, never assumed from the type.
public struct AppAttestReceipt: Sendable, Equatable {
    /// Field 6: `ATTEST` or `RECEIPT` (other text is kept as it is).
    public var type: String
    /// Field 2: the app id, `TEAMID.bundleId`.
    public var appId: String
    /// Field 3: the attested key's certificate (DER), the App Attest leaf.
    public var attestedCertificate: [UInt8]
    /// The attested key's X9.62 point, read from field 3's certificate (nil when it holds no P-256 key).
    public var attestedKey: [UInt8]?
    /// Field 4: the client data hash (of the attestation, on `ATTEST`; not meaningful on `RECEIPT`).
    public var clientHash: [UInt8]?
    /// Field 5: Apple's token for the key (base64 text).
    public var token: String?
    /// Field 7: `production` or `sandbox` (undocumented).
    public var environment: String?
    /// Field 12: when Apple made the receipt, Unix seconds.
    public var creationTime: Int64
    /// Field 17 (`RECEIPT` only): Apple's fraud risk metric, the approximate count of keys attested for the app on
    /// the device over the past 30 days.
    public var riskMetric: Int?
    /// Field 19: the earliest time Apple gives a new receipt for this one, Unix seconds.
    public var notBefore: Int64?
    /// Field 21: when the receipt stops being exchangeable, Unix seconds.
    public var expirationTime: Int64?

    /// The receipt types Apple writes.
    public static let attestType = "ATTEST"
    /// A receipt Apple returned from `attestationData`.
    public static let receiptType = "RECEIPT"
}
