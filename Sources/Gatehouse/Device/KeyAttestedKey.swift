import Attestation

/// An Android key as stored after a verified key attestation (docs/device-api.md "Android Key Attestation"): whose
/// it is, the app the attestation named, the chain's serials (checked against the status list at each use) and what
/// the phone showed of itself.
public struct KeyAttestedKey: Sendable, Equatable {
    /// SHA-256 of the key's SubjectPublicKeyInfo (32 bytes); the wire's `keyId` is its base64url.
    public var keyID: [UInt8]
    public var environmentID: String
    /// DER SubjectPublicKeyInfo of the P-256 key.
    public var publicKey: [UInt8]
    /// The registered package the attestation application id named.
    public var packageName: String
    /// The signing certificates' SHA-256 digests it named.
    public var certificateDigests: [[UInt8]]
    /// The chain's serials, lowercase hex without leading zeros.
    public var serials: [String]
    /// `tee` or `strongbox`.
    public var securityLevel: String
    public var bootState: String?
    public var bootKey: String?
    public var osPatchLevel: String?
    public var createdAt: Int64

    public init(keyID: [UInt8], environmentID: String, publicKey: [UInt8], packageName: String, certificateDigests: [[UInt8]],
                serials: [String], securityLevel: String, bootState: String?, bootKey: String?, osPatchLevel: String?, createdAt: Int64) {
        self.keyID = keyID
        self.environmentID = environmentID
        self.publicKey = publicKey
        self.packageName = packageName
        self.certificateDigests = certificateDigests
        self.serials = serials
        self.securityLevel = securityLevel
        self.bootState = bootState
        self.bootKey = bootKey
        self.osPatchLevel = osPatchLevel
        self.createdAt = createdAt
    }
}
