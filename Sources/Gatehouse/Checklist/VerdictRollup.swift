/// One rollup row of attestation verdicts: a count per hour × provider × status × reason.
///
/// Every verdict is counted once in the row of its status with `reason == nil`, and once more in the row of
/// each reason it carries (a verdict can carry several). The checklist only sums rows, so a pre-summed row
/// (several hours in one) is as good as hourly ones, as long as its `hour` lies in the window.
public struct VerdictRollup: Sendable, Equatable {
    /// Start of the hour the row counts, unix seconds.
    public var hour: Int64
    /// `"play-integrity"` or `"app-attest"`.
    public var provider: String
    /// `"verified"`, `"forged"`, `"rejected"` or `"unavailable"`.
    public var status: String
    /// `nil` for the row counting the verdicts of this status; otherwise the reason this row counts.
    public var reason: String?
    /// For `reason == nil`: the number of verdicts; otherwise the number of verdicts carrying the reason.
    public var count: Int
    /// For reason rows: the values devices reported alongside the reason, most seen first.
    public var observed: [ObservedValue]

    /// Creates a rollup row.
    public init(
        hour: Int64, provider: String, status: String, reason: String? = nil, count: Int,
        observed: [ObservedValue] = []
    ) {
        self.hour = hour
        self.provider = provider
        self.status = status
        self.reason = reason
        self.count = count
        self.observed = observed
    }
}
