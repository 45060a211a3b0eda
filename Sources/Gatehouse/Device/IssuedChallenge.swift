/// A challenge as handed to a device: the text it hashes into its attestation's clientDataHash, and when it expires.
public struct IssuedChallenge: Sendable, Equatable {
    /// Base64url without padding of 32 random bytes.
    public var challenge: String
    /// Unix seconds; the challenge is refused from then on.
    public var expiresAt: Int64

    /// A challenge `challenge` valid until `expiresAt`.
    public init(challenge: String, expiresAt: Int64) {
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}
