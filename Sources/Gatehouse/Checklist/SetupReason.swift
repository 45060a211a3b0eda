/// The one table from a verdict reason to the setup fault it points to.
///
/// A setup reason is one genuine phones produce on their own when the environment is set up wrong: keys that are
/// not the app's, a certificate, package or app id not registered, a build Play does not know, development keys
/// in production. Every reason not in this table — `deviceIntegrityNotMet`, `virtualDevice`,
/// `basicIntegrityOnly`, `playProtect:*`, `controllingAppDetected`, `capturingAppDetected`,
/// `highDeviceActivity`, `staleVerdict`, `verdictReplayed`, `counterReused`, `counterRegression`,
/// `oneKeyManyDevices`, `requestMismatch`, `unknownKeyId`, `missingKeyId`, `assertionInvalid`,
/// `certificateChainInvalid`, `nonceMismatch`, `packageMismatch`, `googleUnreachable` and any reason this
/// table does not know — speaks of the device or the network, never of the setup: however dominant, it never
/// makes a setup item, so a farm attacking the app cannot look like the admin's mistake.
///
/// A reason counts only for the provider that reports it (`notConfigured` from App Attest is not a Play
/// Integrity setup fault); the same reason of two providers (`certificateMismatch`) is two entries.
public enum SetupReason: Sendable, CaseIterable {
    /// Play Integrity: the token did not decrypt with the local response keys.
    case decryptionFailed
    /// Play Integrity: the token's signature did not verify with the local verification key.
    case signatureInvalid
    /// Play Integrity: the app's signing certificate is not registered for its package.
    case certificateMismatch
    /// Play Integrity: the package is not registered in this environment.
    case packageNotRegistered
    /// Play Integrity: Google does not recognize the binary (`appVerdict:UNRECOGNIZED_VERSION`).
    case unrecognizedVersion
    /// Play Integrity: Play did not license the install.
    case unlicensed
    /// Play Integrity: Google refused the service account.
    case serviceAccountRejected
    /// Play Integrity: nothing is set to decode the verdict with.
    case notConfigured
    /// App Attest: the app id Apple signed is not registered.
    case appIdNotRegistered
    /// App Attest: the key was attested by Apple's development environment.
    case developmentKey
    /// Key Attestation: a phone booted an operating system signed by a key the policy does not accept (GrapheneOS, say).
    case bootKeyUnknown
    /// Key Attestation: the app's signing certificate in the chain is not registered for its package.
    case keyAttestationCertificateMismatch

    /// The table: the verdict reason, which checklist item it points to, and which provider reports it.
    private var entry: (reason: String, item: SetupItem, provider: String) {
        switch self {
        case .decryptionFailed: ("decryptionFailed", .keysNotTheApps, Provider.playIntegrity)
        case .signatureInvalid: ("signatureInvalid", .keysNotTheApps, Provider.playIntegrity)
        case .certificateMismatch: ("certificateMismatch", .certificateNotRegistered, Provider.playIntegrity)
        case .packageNotRegistered: ("packageNotRegistered", .packageNotRegistered, Provider.playIntegrity)
        case .unrecognizedVersion: ("appVerdict:UNRECOGNIZED_VERSION", .notFromPlay, Provider.playIntegrity)
        case .unlicensed: ("unlicensed", .notFromPlay, Provider.playIntegrity)
        case .serviceAccountRejected: ("serviceAccountRejected", .serviceAccountRejected, Provider.playIntegrity)
        case .notConfigured: ("notConfigured", .notConfiguredTraffic, Provider.playIntegrity)
        case .appIdNotRegistered: ("appIdNotRegistered", .appIdNotRegistered, Provider.appAttest)
        case .developmentKey: ("developmentKey", .developmentKey, Provider.appAttest)
        case .bootKeyUnknown: ("bootKeyUnknown", .bootKeyUnknown, Provider.keyAttestation)
        case .keyAttestationCertificateMismatch: ("certificateMismatch", .keyAttestationCertificateNotRegistered, Provider.keyAttestation)
        }
    }

    /// The setup reason a verdict reason of this provider is, or `nil` when it is a device reason
    /// (or a reason this provider does not report as a setup fault).
    public init?(reason: String, provider: String) {
        guard let known = SetupReason.allCases.first(where: { $0.reason == reason && $0.provider == provider }) else { return nil }
        self = known
    }

    /// The verdict reason, as verdicts carry it.
    public var reason: String { entry.reason }

    /// The checklist item the reason points to.
    public var item: SetupItem { entry.item }

    /// The provider that reports the reason.
    public var provider: String { entry.provider }
}

/// Provider names as they appear in verdicts.
public enum Provider {
    /// Google Play Integrity (Android).
    public static let playIntegrity = "play-integrity"
    /// Apple App Attest (iOS).
    public static let appAttest = "app-attest"
    /// A debug token of the environment (simulators, emulators, CI): never counted as either platform's provider.
    public static let debug = "debug"
    /// Android's hardware key attestation (phones without Play, operating systems Google does not list).
    public static let keyAttestation = "key-attestation"

    /// The name an admin reads: "Play Integrity", "App Attest" (an unknown provider as it is).
    public static func displayName(_ provider: String) -> String {
        switch provider {
        case playIntegrity: "Play Integrity"
        case appAttest: "App Attest"
        case debug: "Debug token"
        case keyAttestation: "Key Attestation"
        default: provider
        }
    }
}
