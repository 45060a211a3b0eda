@testable import Gatehouse

/// Builders for checklist tests: a week of verdicts written as groups of alike verdicts.
enum ChecklistFixtures {
    /// A fixed "now", on an hour boundary.
    static let now: Int64 = 1_760_000_400
    /// One hour before now: inside the window.
    static let lastHour: Int64 = now - 3_600
    /// Seven days, seconds.
    static let week: Int64 = 7 * 86_400

    static let playDigest = "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99"
    static let uploadDigest = "11:22:33:44:55:66:77:88:99:00:AA:BB:CC:DD:EE:FF:11:22:33:44:55:66:77:88:99:00:AA:BB:CC:DD:EE:FF"
    static let strangerDigest = "DE:AD:BE:EF:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:00:01"

    /// An Android app registered with its upload key only.
    static let app = AndroidAppSetup(packageName: "com.example.app", certificateDigests: [uploadDigest])

    /// A production environment with an Android app (Play Integrity through a service account and local keys),
    /// an Apple app id and a secret key: every configuration item ok.
    static let complete = ChecklistConfiguration(
        kind: "production", attackMode: false, androidApps: [app], appleAppIds: ["TEAMID1234.com.example.app"],
        serviceAccountSet: true, localKeysSet: true, activeSecretKeys: 1)

    /// `count` verdicts alike: one status, the reasons they all carry, what devices reported.
    struct Group {
        var status: String
        var reasons: [String]
        var count: Int
        var observed: [ObservedValue] = []
    }

    /// Rollup rows for the groups, as ingest would write them for one hour: one `reason == nil` row per status
    /// (every verdict once) and one row per status × reason.
    static func rollups(
        _ provider: String, _ groups: [Group], hour: Int64 = lastHour
    ) -> [VerdictRollup] {
        var statusTotals: [(String, Int)] = []
        for group in groups {
            if let index = statusTotals.firstIndex(where: { $0.0 == group.status }) {
                statusTotals[index].1 += group.count
            } else {
                statusTotals.append((group.status, group.count))
            }
        }
        var rows = statusTotals.map {
            VerdictRollup(hour: hour, provider: provider, status: $0.0, reason: nil, count: $0.1)
        }
        for group in groups {
            for reason in group.reasons {
                rows.append(VerdictRollup(
                    hour: hour, provider: provider, status: group.status, reason: reason, count: group.count,
                    observed: group.observed))
            }
        }
        return rows
    }

    /// `verified` verified verdicts plus `failing` verdicts of one status with the given reasons.
    static func week(
        _ provider: String, verified: Int, failing: Int, status: String, reasons: [String],
        observed: [ObservedValue] = [], hour: Int64 = lastHour
    ) -> [VerdictRollup] {
        rollups(provider, [
            Group(status: "verified", reasons: [], count: verified),
            Group(status: status, reasons: reasons, count: failing, observed: observed),
        ], hour: hour)
    }

    /// An observed certificate digest.
    static func digest(_ value: String, _ count: Int) -> ObservedValue {
        ObservedValue(field: "certificateDigest", value: value, count: count)
    }

    /// An observed package.
    static func package(_ value: String, _ count: Int) -> ObservedValue {
        ObservedValue(field: "packageName", value: value, count: count)
    }

    /// An observed Apple app id.
    static func appId(_ value: String, _ count: Int) -> ObservedValue {
        ObservedValue(field: "appId", value: value, count: count)
    }

    /// Evaluates at `now`.
    static func evaluate(
        _ configuration: ChecklistConfiguration = complete, _ rollups: [VerdictRollup]
    ) -> ChecklistReport {
        Checklist.evaluate(configuration: configuration, rollups: rollups, now: now)
    }

    /// The ids of the traffic items.
    static let trafficIDs = SetupItem.allCases.map(\.rawValue)
}
