/// A key registration to judge: what the device sent, and the client data hash the server computed.
public struct AttestationRequest: Sendable {
    /// The CBOR attestation object, as decoded from base64.
    public var attestation: [UInt8]
    /// The key id the device claims (32 bytes for a genuine key; any length is judged).
    public var keyId: [UInt8]
    /// The bytes appended to authData for the nonce: the server uses SHA-256(challenge string UTF-8), 32 bytes;
    /// Apple's published examples use the raw challenge, so any length is accepted.
    public var clientDataHash: [UInt8]

    /// A request for `attestation` by key `keyId` against `clientDataHash`.
    public init(attestation: [UInt8], keyId: [UInt8], clientDataHash: [UInt8]) {
        self.attestation = attestation
        self.keyId = keyId
        self.clientDataHash = clientDataHash
    }
}
