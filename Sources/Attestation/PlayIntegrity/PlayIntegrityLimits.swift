/// Bounds on what the Play Integrity JOSE reader accepts, so hostile tokens cost little. A genuine classic token is
/// about 2–4 KiB; every fixed-size part (wrapped key, IV, tag, signature) must have exactly its size.
public struct PlayIntegrityLimits: Sendable, Equatable {
    /// Largest token (the whole JWE compact serialization), in bytes.
    public var maxTokenBytes: Int
    /// Largest protected header of the JWE or the JWS, decoded, in bytes.
    public var maxHeaderBytes: Int

    /// Limits with the defaults: 32 KiB tokens, 1 KiB headers.
    public init(maxTokenBytes: Int = 32 * 1024, maxHeaderBytes: Int = 1024) {
        self.maxTokenBytes = maxTokenBytes
        self.maxHeaderBytes = maxHeaderBytes
    }
}
