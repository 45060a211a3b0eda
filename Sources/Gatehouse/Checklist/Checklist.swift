/// The attestation setup checklist: a pure function from what an environment registered and the week's
/// verdict rollups to the items an admin reads on the traffic page.
///
/// Two kinds of items, all always present (an item that is fine is `ok`, so the page can show it green):
/// - configuration items (``configurationItems(_:week:)``): nothing registered, keys not set, attack mode
///   with nothing to prove;
/// - traffic items (one per ``SetupItem``): most of a provider's verdicts of the week fail alike for a reason
///   only the setup explains (``SetupReason`` is the table; ``ChecklistThresholds`` the limits).
///
/// Device reasons — rooted, emulated, replayed, cloned — never make an item.
public enum Checklist {
    /// Evaluates the checklist over the window `now - 7 days ..< now` (unix seconds).
    ///
    /// A rollup row counts when its `hour` lies in the window: the row starting exactly seven days before `now`
    /// is in, a row starting at `now` or later is out. Items come failing first, then warnings, then ok;
    /// within a status, configuration items first, each kind in its documented order.
    public static func evaluate(
        configuration: ChecklistConfiguration, rollups: [VerdictRollup], now: Int64,
        thresholds: ChecklistThresholds = .standard
    ) -> ChecklistReport {
        let (start, overflow) = now.subtractingReportingOverflow(max(0, thresholds.windowSeconds))
        let from = overflow ? Int64.min : start
        let week = TrafficWeek(rollups: rollups, from: from, to: now)
        let items = configurationItems(configuration, week: week)
            + trafficItems(configuration, week: week, thresholds: thresholds)
            + enforcementItems(configuration, from: from)
        return ChecklistReport(windowFrom: from, windowTo: now, items: ordered(items))
    }

    /// The items failing first, then warnings, then ok, keeping their order within a status.
    static func ordered(_ items: [ChecklistItem]) -> [ChecklistItem] {
        ChecklistStatus.allCases.flatMap { status in items.filter { $0.status == status } }
    }
}
