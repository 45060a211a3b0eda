import Attestation

/// An App Attest key as stored after a verified registration: whose it is, what it was attested for, and the counters
/// its assertions have used.
public struct AttestedKey: Sendable, Equatable {
    /// SHA-256 of the key's X9.62 point (32 bytes).
    public var keyID: [UInt8]
    public var environmentID: String
    /// The 65-byte X9.62 uncompressed point.
    public var publicKey: [UInt8]
    /// The registered app id ("TEAMID.bundleId") the key was attested for.
    public var appID: String
    /// The App Attest environment the key was made in.
    public var attestationEnvironment: AttestationEnvironment
    /// The assertion counters seen so far.
    public var counter: CounterWindow
    public var createdAt: Int64
    /// When an assertion by the key was last verified (nil: never).
    public var lastUsedAt: Int64?
    /// Apple's fraud risk metric from the key's newest receipt, when a refresh brought one.
    public var riskMetric: Int?
    /// When that receipt came (Unix seconds).
    public var riskMetricAt: Int64?

    /// A stored key.
    public init(keyID: [UInt8], environmentID: String, publicKey: [UInt8], appID: String,
                attestationEnvironment: AttestationEnvironment, counter: CounterWindow, createdAt: Int64, lastUsedAt: Int64?,
                riskMetric: Int? = nil, riskMetricAt: Int64? = nil) {
        self.riskMetric = riskMetric
        self.riskMetricAt = riskMetricAt
        self.keyID = keyID
        self.environmentID = environmentID
        self.publicKey = publicKey
        self.appID = appID
        self.attestationEnvironment = attestationEnvironment
        self.counter = counter
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
