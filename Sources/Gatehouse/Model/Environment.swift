import Attestation

/// An environment: one deployment of a team's apps (production or development) with everything registered for it.
public struct Environment: Sendable, Equatable {
    public var id: String
    public var name: String
    public var kind: EnvironmentKind
    public var attackMode: Bool
    public var androidApps: [AndroidApp]
    public var appleAppIDs: [String]
    public var playIntegrity: PlayIntegrityStatus
    /// Its routes and modes for the edge check and the backend middlewares (docs/device-api.md "Enforcement").
    public var enforcement: EnforcementSettings = EnforcementSettings()
    /// Its App Attest policy and DeviceCheck key (docs/device-api.md "App Attest in depth").
    public var appAttest: AppAttestSettings = AppAttestSettings()
    /// What it accepts of Android key attestation (docs/device-api.md "Android Key Attestation", "The policy").
    public var keyAttestation = KeyAttestationPolicy()
    /// Bumped on every change; the entity tag clients send back in `If-Match`.
    public var revision: Int64
    public var createdAt: Int64
    public var updatedAt: Int64

    /// The strong entity tag for this revision (RFC 9110 §8.8.3).
    public var etag: String { "\"\(id).\(revision)\"" }
}

/// Whether an environment serves real users (`pk_live_…` keys) or development builds (`pk_test_…`).
public enum EnvironmentKind: String, Sendable, Equatable, CaseIterable {
    case production
    case development

    /// The key prefix segment: `live` for production, `test` for development.
    public var keyMode: String { self == .production ? "live" : "test" }
}

/// An Android app registered in an environment: its package and the signing certificates it may be signed with.
public struct AndroidApp: Sendable, Equatable {
    public var packageName: String
    /// SHA-256 digests of signing certificates, 32 bytes each, in the order given, without duplicates.
    public var certificateDigests: [[UInt8]]
    /// Shipped outside Google Play too: builds signed with a registered certificate are not held to Play's
    /// recognition (UNRECOGNIZED_VERSION) or licensing verdicts.
    public var outsidePlay: Bool

    public init(packageName: String, certificateDigests: [[UInt8]], outsidePlay: Bool) {
        self.packageName = packageName
        self.certificateDigests = certificateDigests
        self.outsidePlay = outsidePlay
    }
}

/// Which Play Integrity decoding credentials are set, with their non-secret identifiers only.
public struct PlayIntegrityStatus: Sendable, Equatable {
    public var serviceAccountSet: Bool = false
    public var serviceAccountEmail: String?
    public var serviceAccountProject: String?
    public var localSet: Bool = false
    /// SHA-256 (hex) of the verification key's DER, to tell keys apart without showing them.
    public var localVerificationKeySHA256: String?
    /// The project's quota of decodes through Google per day (`dailyQuota`): what `android.googleQuota` holds today's
    /// calls against.
    public var dailyQuota: Int = PlayIntegrityStatus.defaultDailyQuota
    /// What the environment asks of verdicts (`policy`; today's rules unless it chose others).
    public var policy = PlayIntegrityPolicy()

    /// Google's default quota of `decodeIntegrityToken` calls per app and day.
    public static let defaultDailyQuota = 10_000
    /// The largest quota taken (Google raises quotas on request, never this far).
    public static let maxDailyQuota = 100_000_000

    public init() {}
}
