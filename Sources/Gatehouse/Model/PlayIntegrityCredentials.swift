import JSON

/// A Google service-account JSON key, validated, for decoding Play Integrity tokens through Google.
/// Secret: sealed at rest, never returned; only `clientEmail` and `projectID` are shown.
public struct ServiceAccountKey: Sendable, Equatable {
    /// The key object exactly as given (it holds the private key).
    public var document: JSON
    public var clientEmail: String
    public var projectID: String?
}

/// Play Console's response-encryption keys for decoding classic Play Integrity tokens on this server.
/// Secret: sealed at rest, never returned; only the verification key's SHA-256 is shown.
public struct LocalDecodingKeys: Sendable, Equatable {
    /// AES-256 key, 32 bytes.
    public var decryptionKey: [UInt8]
    /// EC P-256 public key, DER SubjectPublicKeyInfo.
    public var verificationKey: [UInt8]
}
