/// The four kinds of judgement of docs/device-api.md "Verdicts". `forged`: the proof itself is false; `rejected`: the
/// proof is genuine but condemns the app, the device or its use; `unavailable`: nothing could be judged.
public enum VerdictStatus: String, Sendable {
    case verified, forged, rejected, unavailable

    /// How grave the kind is when reasons of several kinds meet: forged > rejected > unavailable > verified.
    var gravity: Int {
        switch self {
        case .verified: 0
        case .unavailable: 1
        case .rejected: 2
        case .forged: 3
        }
    }
}
