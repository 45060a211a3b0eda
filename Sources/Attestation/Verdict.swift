/// A judgement as docs/device-api.md sends it: `{"status", "reasons"}`. `verified` has no reasons; otherwise the status
/// is the gravest kind among the reasons (forged > rejected > unavailable).
public struct Verdict: Sendable, Equatable {
    /// The kind of judgement.
    public var status: VerdictStatus
    /// The reason codes, in the order they were found, without repeats.
    public var reasons: [String]

    /// The verdict of a proof that passed every check.
    public static let verified = Verdict(status: .verified, reasons: [])

    /// The verdict the reasons add up to: `verified` when there are none, else the gravest kind among them.
    public init(reasons: [Reason]) {
        var codes: [String] = []
        var status = VerdictStatus.verified
        for reason in reasons {
            if !codes.contains(reason.code) { codes.append(reason.code) }
            if reason.kind.gravity > status.gravity { status = reason.kind }
        }
        self.init(status: status, reasons: codes)
    }

    /// A verdict with an explicit status and reason codes (as read back from storage, say). Prefer
    /// ``init(reasons:)``, which derives the status.
    public init(status: VerdictStatus, reasons: [String]) {
        self.status = status
        self.reasons = reasons
    }

    /// Whether this is `verified`.
    public var isVerified: Bool { status == .verified }
}
