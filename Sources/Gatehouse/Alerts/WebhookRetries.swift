/// When a failed delivery is tried again (docs/device-api.md "Delivery"): about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
/// then every 10 h, each multiplied by the server's retry scale and by a jitter between 0.8 and 1.2; an endpoint that has
/// failed for 3 days in a row is disabled.
public enum WebhookRetries {
    /// The intervals after the 1st, 2nd… failure (seconds); the last one repeats.
    static let intervals: [Double] = [5, 300, 1_800, 7_200, 18_000, 36_000]
    /// How long an endpoint may fail in a row before it is disabled: 3 days, times the retry scale.
    static let giveUpAfter: Double = 3 * 86_400

    /// Seconds until the next try after `attempts` failed ones, with `random` in 0..<1 drawing the jitter.
    static func delay(afterAttempts attempts: Int, scale: Double, random: Double) -> Int64 {
        let base = intervals[min(max(attempts, 1), intervals.count) - 1]
        return max(1, Int64((base * scale * (0.8 + 0.4 * random)).rounded()))
    }

    /// Whether an endpoint failing since `failingSince` is given up rather than tried again at `nextTry`: its next try
    /// would fall past 3 days of failures (when its events are no longer kept).
    static func givesUp(failingSince: Int64, nextTry: Int64, scale: Double) -> Bool {
        Double(nextTry - failingSince) >= giveUpAfter * scale
    }
}
