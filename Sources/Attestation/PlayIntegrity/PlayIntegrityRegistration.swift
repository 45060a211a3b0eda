/// What an environment registered for Android, as the Play Integrity checks need it.
public struct PlayIntegrityRegistration: Sendable, Equatable {
    /// The registered Android apps (`androidApps`).
    public var apps: [AndroidAppRegistration]
    /// The environment's policy (``PlayIntegrityPolicy``: today's rules unless it chose others).
    public var policy: PlayIntegrityPolicy
    /// Whether the environment is production (testing responses are then refused unless the policy says otherwise).
    public var isProduction: Bool

    /// A registration of `apps` under `policy`, in a production environment or not.
    public init(apps: [AndroidAppRegistration], policy: PlayIntegrityPolicy = PlayIntegrityPolicy(), isProduction: Bool = false) {
        self.apps = apps
        self.policy = policy
        self.isProduction = isProduction
    }

    /// The registered app with `packageName`, if any.
    public func app(_ packageName: String) -> AndroidAppRegistration? {
        apps.first { $0.packageName == packageName }
    }
}

/// One registered Android app: its package, the SHA-256 digests of its signing certificates, and whether it also
/// ships outside Google Play.
public struct AndroidAppRegistration: Sendable, Equatable {
    /// The package name, e.g. `com.example.app`.
    public var packageName: String
    /// SHA-256 digests of the app's signing certificates, 32 bytes each.
    public var certificateDigests: [[UInt8]]
    /// Shipped outside Play too: a build signed with a registered certificate is not held to
    /// `appVerdict:UNRECOGNIZED_VERSION` nor `unlicensed` (seed 003, `outsidePlay`).
    public var outsidePlay: Bool

    /// An app registration.
    public init(packageName: String, certificateDigests: [[UInt8]], outsidePlay: Bool = false) {
        self.packageName = packageName
        self.certificateDigests = certificateDigests
        self.outsidePlay = outsidePlay
    }
}
