/// The attestation a receipt was issued on: its provider and its verdict status (the `att` claim).
public struct ReceiptAttestation: Sendable, Equatable, Hashable {
    /// `play-integrity`, `app-attest` or `debug`.
    public var provider: String
    /// `verified`, `forged`, `rejected` or `unavailable`.
    public var status: String
    /// App Attest: Apple's fraud risk metric of the key that asserted, when known (`att.risk`).
    public var risk: Int?

    /// The status of an attestation that was verified.
    public static let verified = "verified"
    /// The provider of a debug token's attestation: a bearer credential, not a genuine install.
    public static let debugProvider = "debug"

    /// The attestation of `provider` with verdict `status`.
    public init(provider: String, status: String, risk: Int? = nil) {
        self.provider = provider
        self.status = status
        self.risk = risk
    }
}
