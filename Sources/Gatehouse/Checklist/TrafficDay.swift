/// Verdicts of one day of the window, per status.
public struct TrafficDay: Sendable, Equatable {
    /// First second of the day, unix seconds.
    public var start: Int64
    /// Verified verdicts.
    public var verified: Int
    /// Forged verdicts.
    public var forged: Int
    /// Rejected verdicts.
    public var rejected: Int
    /// Unavailable verdicts.
    public var unavailable: Int

    /// Creates a day; counts default to zero.
    public init(start: Int64, verified: Int = 0, forged: Int = 0, rejected: Int = 0, unavailable: Int = 0) {
        self.start = start
        self.verified = verified
        self.forged = forged
        self.rejected = rejected
        self.unavailable = unavailable
    }

    /// All verdicts of the day.
    public var total: Int { [verified, forged, rejected, unavailable].reduce(0) { $0.addingCount($1) } }
}
