import JSON

/// The dialog that would fix a Play Integrity failure (docs/device-api.md "The dialog that would fix it"): the app shows it
/// with `showDialog(activity, code)` (Google's `IntegrityDialogTypeCode`).
public enum PlayIntegrityRemediation: Int, Sendable, CaseIterable {
    case getLicensed = 1
    case closeUnknownAccessRisk = 2
    case closeAllAccessRisk = 3
    case getIntegrity = 4
    case getStrongIntegrity = 5

    /// Google's name of the dialog.
    public var dialog: String {
        switch self {
        case .getLicensed: "GET_LICENSED"
        case .closeUnknownAccessRisk: "CLOSE_UNKNOWN_ACCESS_RISK"
        case .closeAllAccessRisk: "CLOSE_ALL_ACCESS_RISK"
        case .getIntegrity: "GET_INTEGRITY"
        case .getStrongIntegrity: "GET_STRONG_INTEGRITY"
        }
    }

    /// `{"dialog", "code"}`.
    public var json: JSON {
        .object([.init("dialog", .string(dialog)), .init("code", .int(Int64(rawValue)))])
    }

    /// The reasons an unknown app refused gives, and those of a known one.
    static let unknownApps: Set<String> = ["controllingAppDetected", "capturingAppDetected", "overlayAppDetected", "unknownAppInstalled"]
    static let knownApps: Set<String> = ["knownControllingAppDetected", "knownCapturingAppDetected", "knownOverlayAppDetected", "knownAppInstalled"]
    static let device: Set<String> = ["deviceIntegrityNotMet", "basicIntegrityOnly", "virtualDevice"]
    /// Reasons that make any dialog pointless: the token itself is not to be trusted or acted on.
    static let untrusted: Set<String> = ["staleVerdict", "verdictReplayed"]

    /// The dialog for `verdict`, the first that applies in the contract's order; nil when verified, forged, stale or
    /// replayed, or when only app-side reasons (certificate, version code, package) are left.
    public init?(_ verdict: Verdict) {
        let reasons = Set(verdict.reasons)
        guard verdict.status == .rejected, reasons.isDisjoint(with: Self.untrusted) else { return nil }
        if reasons.contains("unlicensed") {
            self = .getLicensed
        } else if !reasons.isDisjoint(with: Self.unknownApps) {
            self = .closeUnknownAccessRisk
        } else if !reasons.isDisjoint(with: Self.knownApps) {
            self = .closeAllAccessRisk
        } else if !reasons.isDisjoint(with: Self.device) {
            self = .getIntegrity
        } else if reasons.contains("strongIntegrityNotMet") {
            self = .getStrongIntegrity
        } else {
            return nil
        }
    }
}
