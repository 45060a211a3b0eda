/// Every bound the receipt and proof readers apply, with their defaults, in one place.
public struct ReceiptLimits: Sendable, Equatable {
    /// Longest token read, in bytes (a bound receipt is about 600).
    public var maxTokenBytes: Int
    /// Longest proof header read, in bytes (a DER signature makes one about 110).
    public var maxProofBytes: Int
    /// Longest JWKS document read, in bytes.
    public var maxKeySetBytes: Int
    /// Most keys in a JWKS.
    public var maxKeys: Int
    /// How old a proof may be, in milliseconds (docs/device-api.md: 2 minutes).
    public var proofMaxAgeMilliseconds: Int64
    /// How far in the future a proof's time may lie (the phone's clock ahead of the server's), in milliseconds.
    public var proofMaxAheadMilliseconds: Int64
    /// How far in the future a receipt's `iat` may lie (the issuer's clock ahead of this one), in seconds.
    public var issuedAtLeewaySeconds: Int64

    /// The defaults: 8 KiB tokens, 512-byte proofs, 64 KiB and 32 keys per JWKS, proofs at most 2 minutes old and
    /// 10 seconds ahead, receipts issued at most 60 seconds ahead.
    public init(maxTokenBytes: Int = 8192, maxProofBytes: Int = 512, maxKeySetBytes: Int = 65_536, maxKeys: Int = 32,
                proofMaxAgeMilliseconds: Int64 = 120_000, proofMaxAheadMilliseconds: Int64 = 10_000,
                issuedAtLeewaySeconds: Int64 = 60) {
        self.maxTokenBytes = maxTokenBytes
        self.maxProofBytes = maxProofBytes
        self.maxKeySetBytes = maxKeySetBytes
        self.maxKeys = maxKeys
        self.proofMaxAgeMilliseconds = proofMaxAgeMilliseconds
        self.proofMaxAheadMilliseconds = proofMaxAheadMilliseconds
        self.issuedAtLeewaySeconds = issuedAtLeewaySeconds
    }
}
