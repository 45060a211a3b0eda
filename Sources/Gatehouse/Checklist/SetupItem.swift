/// A traffic item of the setup checklist: a setup fault that shows in the week's verdicts.
///
/// Which reasons feed which item is decided by ``SetupReason`` alone.
public enum SetupItem: String, Sendable, CaseIterable {
    /// The local Play Integrity keys are not this app's: every genuine phone reads as forged.
    case keysNotTheApps = "playIntegrity.keysNotTheApps"
    /// Phones carry a signing certificate that is not registered (usually Play's app-signing key).
    case certificateNotRegistered = "android.certificateNotRegistered"
    /// Phones run a package that is not registered.
    case packageNotRegistered = "android.packageNotRegistered"
    /// Genuine builds come from outside Google Play but the app is not marked so.
    case notFromPlay = "android.notFromPlay"
    /// Google refuses the service account.
    case serviceAccountRejected = "playIntegrity.serviceAccountRejected"
    /// Verdicts arrive that nothing is set to decode.
    case notConfiguredTraffic = "playIntegrity.notConfiguredTraffic"
    /// Phones attest an app id that is not registered.
    case appIdNotRegistered = "apple.appIdNotRegistered"
    /// Builds attest against Apple's development environment in a production environment.
    case developmentKey = "apple.developmentKey"
    /// Phones boot an operating system whose key the Key Attestation policy does not accept.
    case bootKeyUnknown = "keyAttestation.bootKeys"
    /// Phones attest keys for an app signed with a certificate that is not registered (Play's app-signing key, again).
    case keyAttestationCertificateNotRegistered = "keyAttestation.certificateNotRegistered"

    /// The reasons that feed the item, in table order.
    public var reasons: [SetupReason] { SetupReason.allCases.filter { $0.item == self } }

    /// The provider whose verdicts the item counts.
    public var provider: String { reasons.first?.provider ?? Provider.playIntegrity }

    /// How the counts of several reasons become the item's count of verdicts.
    ///
    /// Rows count reasons, not distinct verdicts, so when an item has several reasons the number of verdicts
    /// carrying any of them lies between the largest per-reason count and their sum. Per status, the sum is
    /// used, capped at the verdicts of that status (and never below the largest reason): right when the
    /// reasons exclude each other, as `decryptionFailed` and `signatureInvalid` do (a token that does not
    /// decrypt has no signature to check). `notFromPlay` is the exception: Play neither recognizes nor
    /// licenses a sideloaded build, so its two reasons come together on the same verdicts and their sum would
    /// count each verdict twice; it takes the largest per-reason count (a lower bound), so a mistake can only
    /// understate a setup fault, never invent one.
    var reasonsOverlap: Bool { self == .notFromPlay }

    /// The field of the observed values the item shows.
    var observedField: String {
        switch self {
        case .certificateNotRegistered, .notFromPlay, .keyAttestationCertificateNotRegistered: "certificateDigest"
        case .appIdNotRegistered, .developmentKey: "appId"
        case .bootKeyUnknown: "bootKey"
        case .keysNotTheApps, .packageNotRegistered, .serviceAccountRejected, .notConfiguredTraffic:
            "packageName"
        }
    }
}
