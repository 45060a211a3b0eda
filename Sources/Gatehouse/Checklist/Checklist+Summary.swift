extension Checklist {
    /// Summarizes the verdicts of the window `now - 7 days ..< now` (same rows as ``evaluate(configuration:rollups:now:thresholds:)``):
    /// per day and status, and the ten reasons seen most. `provider`, when given, keeps that provider's rows only.
    public static func summarize(
        rollups: [VerdictRollup], now: Int64, provider: String? = nil, thresholds: ChecklistThresholds = .standard
    ) -> TrafficSummary {
        let (start, overflow) = now.subtractingReportingOverflow(max(0, thresholds.windowSeconds))
        let from = overflow ? Int64.min : start
        let rows = TrafficWeek(rollups: rollups, from: from, to: now).rows
            .filter { provider == nil || $0.provider == provider }
        let dayCount = Int(max(0, thresholds.windowSeconds) / 86_400)
        var days = (0..<dayCount).map { TrafficDay(start: from &+ Int64($0) &* 86_400) }
        var reasons: [String: ReasonCount] = [:]
        for row in rows {
            guard let reason = row.reason else {
                let index = Int(row.hour.subtractingReportingOverflow(from).partialValue / 86_400)
                guard days.indices.contains(index) else { continue }
                switch row.status {
                case "verified": days[index].verified = days[index].verified.addingCount(row.count)
                case "forged": days[index].forged = days[index].forged.addingCount(row.count)
                case "rejected": days[index].rejected = days[index].rejected.addingCount(row.count)
                case "unavailable": days[index].unavailable = days[index].unavailable.addingCount(row.count)
                default: break
                }
                continue
            }
            guard row.status != "verified" else { continue }
            let key = row.provider + "\u{0}" + reason
            let setup = SetupReason(reason: reason, provider: row.provider) != nil
            let current = reasons[key] ?? ReasonCount(provider: row.provider, reason: reason, count: 0, setup: setup)
            reasons[key] = ReasonCount(provider: current.provider, reason: reason,
                                       count: current.count.addingCount(row.count), setup: setup)
        }
        let top = reasons.values.sorted {
            ($1.count, $0.provider, $0.reason) < ($0.count, $1.provider, $1.reason)
        }
        return TrafficSummary(windowFrom: from, windowTo: now, days: days, topReasons: Array(top.prefix(10)))
    }
}
