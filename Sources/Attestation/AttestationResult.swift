import Crypto

/// The outcome of a key registration. Fields are filled as far as they could be learnt, even when not verified
/// (so traffic can record the observed app id and environment of a failed attempt).
public struct AttestationResult: Sendable {
    /// The judgement.
    public var verdict: Verdict
    /// The key id: SHA-256 of the attested key's X9.62 point once the leaf certificate was read.
    public var keyId: [UInt8]?
    /// The registered app id whose SHA-256 equals the rpIdHash.
    public var appId: String?
    /// The app id Apple certified on the leaf (extension 1.2.840.113635.100.8.5), once the chain verified and the
    /// certified app id hashes to rpIdHash: what the phone attested, registered or not (a typo in a team id shows here).
    public var attestedAppId: String?
    /// The environment named by the aaguid.
    public var environment: AttestationEnvironment?
    /// The attested key (the leaf certificate's key).
    public var publicKey: ECPublicKey?
    /// `attStmt.receipt`, kept for a later fraud-metric request.
    public var receipt: [UInt8]?
    /// The receipt checked (when the verifier has receipt roots and the attestation is genuine): it does not change
    /// the verdict (Apple's validation steps do not include it).
    public var receiptCheck: AppAttestReceiptCheck?
    /// The authenticator data's extensions (iOS 27 and later).
    public var extensions: AppAttestExtensions?

    /// A result with `verdict` and whatever was learnt.
    public init(verdict: Verdict, keyId: [UInt8]? = nil, appId: String? = nil, environment: AttestationEnvironment? = nil,
                publicKey: ECPublicKey? = nil, receipt: [UInt8]? = nil) {
        self.verdict = verdict
        self.keyId = keyId
        self.appId = appId
        self.environment = environment
        self.publicKey = publicKey
        self.receipt = receipt
    }
}
