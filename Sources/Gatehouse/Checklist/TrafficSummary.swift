/// The week's verdicts at a glance, for the traffic page: counts per day and status, and the reasons seen most.
public struct TrafficSummary: Sendable, Equatable {
    /// First second of the window (included), unix seconds.
    public var windowFrom: Int64
    /// End of the window (excluded), unix seconds.
    public var windowTo: Int64
    /// One entry per day of the window, oldest first; day `i` covers
    /// `windowFrom + i × 86,400 ..< windowFrom + (i + 1) × 86,400` (days of the window, not calendar days).
    public var days: [TrafficDay]
    /// The reasons seen most, by count (descending), then provider and reason (ascending); at most ten.
    public var topReasons: [ReasonCount]

    /// Creates a summary.
    public init(windowFrom: Int64, windowTo: Int64, days: [TrafficDay], topReasons: [ReasonCount]) {
        self.windowFrom = windowFrom
        self.windowTo = windowTo
        self.days = days
        self.topReasons = topReasons
    }
}
