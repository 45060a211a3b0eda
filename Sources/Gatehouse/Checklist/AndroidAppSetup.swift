/// One registered Android app: its package and the signing certificates a genuine build carries.
public struct AndroidAppSetup: Sendable, Equatable {
    /// The application id, e.g. `com.example.app`.
    public var packageName: String
    /// SHA-256 digests of the signing certificates, uppercase colon-separated hex
    /// (as Play Console's App signing page shows them).
    public var certificateDigests: [String]
    /// Whether the app also ships outside Google Play, so Play's recognition and licensing verdicts
    /// are not held against a build signed with a registered certificate.
    public var outsidePlay: Bool

    /// Creates an app registration.
    public init(packageName: String, certificateDigests: [String] = [], outsidePlay: Bool = false) {
        self.packageName = packageName
        self.certificateDigests = certificateDigests
        self.outsidePlay = outsidePlay
    }
}
