/// One attestation verdict as traffic records it (ingested, or judged by this server's device API): when, which
/// provider decided what, why, and what the device reported (digests already normalized to uppercase colon hex). Not
/// `Attestation.Verdict`, the verifier's status and reasons, which this carries with the rest.
public struct TrafficVerdict: Sendable, Equatable {
    public var at: Int64
    public var platform: String
    public var provider: String
    public var status: String
    public var reasons: [String]
    /// Observed fields by name (packageName, certificateDigest, appId, attestationEnvironment, appRecognitionVerdict,
    /// appLicensingVerdict); `deviceRecognitionVerdict` is kept joined by commas.
    public var observed: [String: String]

    public init(at: Int64, platform: String, provider: String, status: String, reasons: [String], observed: [String: String]) {
        self.at = at
        self.platform = platform
        self.provider = provider
        self.status = status
        self.reasons = reasons
        self.observed = observed
    }
}
