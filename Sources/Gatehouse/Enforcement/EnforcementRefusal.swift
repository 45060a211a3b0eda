/// The problem a refused or unjudged call is answered with (docs/device-api.md "Failing: unavailable, misconfigured,
/// shutting down"): one table for the edge check and both backend libraries, held to the same text by the matching
/// vectors (Tests/Fixtures/enforcement/matching.json), so a phone reads the same problem wherever it was refused.
public enum EnforcementRefusal: Sendable, Equatable, CaseIterable {
    /// A judged call that did not pass under `enforce`.
    case missing, invalid, reused, challenge, unmet
    /// A library that cannot reach Gatehouse to judge the call (`503`).
    case unavailable
    /// A library whose secret key or environment Gatehouse refuses (`503`): for the operator to fix.
    case misconfigured

    /// The refusal of an outcome that does not pass (nil for `verified`).
    public init?(_ outcome: EnforcementOutcome) {
        switch outcome {
        case .missing: self = .missing
        case .invalid: self = .invalid
        case .reused: self = .reused
        case .challenge: self = .challenge
        case .unmet: self = .unmet
        case .verified: return nil
        }
    }

    /// The problem type's name, as the relative reference `/problems/<slug>`.
    public var slug: String {
        switch self {
        case .missing: "receipt-missing"
        case .invalid: "receipt-invalid"
        case .reused: "receipt-reused"
        case .challenge: "receipt-challenge"
        case .unmet: "receipt-unmet"
        case .unavailable: "gatehouse-unavailable"
        case .misconfigured: "gatehouse-misconfigured"
        }
    }

    /// The status: `403` for a challenge, `503` when the call could not be judged, `401` otherwise.
    public var status: Int {
        switch self {
        case .challenge: 403
        case .unavailable, .misconfigured: 503
        default: 401
        }
    }

    /// The problem's title, the same for every call of its type.
    public var title: String {
        switch self {
        case .missing: "Receipt required"
        case .invalid: "Receipt not valid"
        case .reused: "Receipt already used"
        case .challenge: "Attestation required"
        case .unmet: "Receipt does not meet the route's requirements"
        case .unavailable: "Receipt cannot be checked now"
        case .misconfigured: "Gatehouse is misconfigured"
        }
    }

    /// The problem's detail: what the caller (or the operator) can do.
    public var detail: String {
        switch self {
        case .missing: "This call needs a Gatehouse receipt in the antibot-token header."
        case .invalid: "The receipt (or its request proof, or the path) does not hold: see reasons."
        case .reused: "This call spends its receipt, and the receipt was spent before: assess again for a new one."
        case .challenge: "Attack mode is on and this receipt was issued without a verified attestation: attest and assess again."
        case .unmet: "The route requires more of the receipt: see reasons."
        case .unavailable: "Gatehouse cannot be reached to check this call's receipt: try again shortly."
        case .misconfigured: "The API's Gatehouse secret key is refused: the operator must fix the configuration."
        }
    }
}
