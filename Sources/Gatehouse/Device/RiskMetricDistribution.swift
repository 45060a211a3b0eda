/// How many keys had each risk metric over a week (docs/device-api.md "Using the metric"), in the Traffic tab's buckets:
/// 1, 2, 3–5, 6–10, above 10.
public struct RiskMetricDistribution: Sendable, Equatable {
    /// Keys per bucket, in ``labels`` order.
    public var counts: [Int]

    /// The buckets' labels.
    public static let labels = ["1", "2", "3–5", "6–10", "above 10"]

    /// The distribution of `metrics` (one per key).
    public init(_ metrics: [Int]) {
        var counts = [Int](repeating: 0, count: Self.labels.count)
        for metric in metrics { counts[Self.bucket(metric)] += 1 }
        self.counts = counts
    }

    /// The bucket of `metric` (0 and below count as 1).
    static func bucket(_ metric: Int) -> Int {
        switch metric {
        case ...1: 0
        case 2: 1
        case 3...5: 2
        case 6...10: 3
        default: 4
        }
    }

    /// Keys counted.
    public var total: Int { counts.reduce(0, +) }

    /// Keys whose metric is above 5.
    public var aboveFive: Int { counts[3] + counts[4] }

    /// The share of keys above 5 (0 when none was counted).
    public var shareAboveFive: Double { total == 0 ? 0 : Double(aboveFive) / Double(total) }
}
