import Attestation
import GatehouseReceipts

/// What `POST /api/v4/assess` answers (docs/device-api.md "Assessment"): the attestation's judgement, the tampering
/// found in the envelope, attack mode's effect, and the receipt.
public struct Assessment: Sendable {
    /// The attestation judged against the canonical string (nil: the request brought none).
    public struct AttestationResult: Sendable, Equatable {
        /// `play-integrity`, `app-attest` or `debug`.
        public var provider: String
        public var verdict: Verdict
        /// App Attest: the asserting key's risk metric from Apple, when known (the receipt's `att.risk`).
        public var riskMetric: Int?
    }

    /// Attack mode's effect on this request.
    public enum AttackMode: String, Sendable {
        /// The switch is off, or this platform has nothing set up to prove itself with.
        case off
        /// The switch is on and the request brought a verified attestation.
        case proven
        /// The switch is on, the platform could have proven itself, and the request did not: its receipt says challenge.
        case unproven
    }

    /// `req_…`: the receipt's subject.
    public var requestID: String
    public var attestation: AttestationResult?
    /// `signatureInvalid`, `replayed`, `signatureDigestMismatch` (in that order, those found).
    public var tampering: [String]
    public var attackMode: AttackMode
    /// What the receipt tells the app's backend to do.
    public var action: ReceiptAction
    /// The receipt (compact JWS, ES256).
    public var sessionToken: String
    /// Whether the receipt names the phone's key (`cnf`).
    public var receiptBound: Bool
}

/// The envelope's tampering reasons (docs/device-api.md: tampering lists only these).
public enum Tampering {
    /// `request.signature` is not the HMAC of the canonical string under the public key.
    public static let signatureInvalid = "signatureInvalid"
    /// The nonce was spent before for this app, in this or another environment.
    public static let replayed = "replayed"
    /// `signed.app.signatureDigest` is not a certificate registered for the package.
    public static let signatureDigestMismatch = "signatureDigestMismatch"
}

extension Reason {
    /// The request is older (or newer) than the 5-minute window: its attestation is not verified.
    public static let requestStale = Reason(.rejected, "requestStale")
    /// The request's nonce was spent before: its attestation is not judged again.
    public static let requestReplayed = Reason(.rejected, "requestReplayed")
    /// The App Attest key spoke for more than two devices this UTC day.
    public static let oneKeyManyDevices = Reason(.rejected, "oneKeyManyDevices")
    /// The debug token is unknown, revoked, expired or another environment's (docs/device-api.md "Debug tokens").
    public static let debugTokenInvalid = Reason(.forged, "debugTokenInvalid")
}
