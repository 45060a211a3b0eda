/// The rollup rows of one window, with the sums the checklist asks of them.
///
/// A row belongs to the window when the hour it starts lies in `from ..< to`: the row starting exactly at
/// `from` (seven days before `now`) is in, the row starting at `now` is out, and so is any row from the future.
/// Negative counts (never written by ingest) are read as zero.
struct TrafficWeek {
    /// The rows of the window.
    let rows: [VerdictRollup]

    /// Keeps the rows of `rollups` whose hour lies in `from ..< to`.
    init(rollups: [VerdictRollup], from: Int64, to: Int64) {
        rows = rollups.filter { $0.hour >= from && $0.hour < to }
    }

    /// All verdicts of a provider, every status.
    func verdicts(_ provider: String) -> Int {
        rows.reduce(0) { sum, row in
            row.provider == provider && row.reason == nil ? sum.addingCount(row.count) : sum
        }
    }

    /// Verdicts of a provider carrying a reason that `matches` (summed over the matching reason rows).
    func reasonCount(provider: String, _ matches: (String) -> Bool) -> Int {
        rows.reduce(0) { sum, row in
            row.provider == provider && row.reason.map(matches) == true ? sum.addingCount(row.count) : sum
        }
    }

    /// Verdicts of a provider with this status.
    func verdicts(_ provider: String, status: String) -> Int {
        rows.reduce(0) { sum, row in
            row.provider == provider && row.reason == nil && row.status == status ? sum.addingCount(row.count) : sum
        }
    }

    /// The reason rows that feed a setup item (the item's reasons, reported by its provider).
    func rows(for item: SetupItem) -> [VerdictRollup] {
        rows.filter { row in
            guard let reason = row.reason, let setup = SetupReason(reason: reason, provider: row.provider) else {
                return false
            }
            return setup.item == item
        }
    }

    /// How many verdicts fail for the item's reasons, counting each row as `rowCount` says.
    ///
    /// Verified verdicts are not failing and are never counted. Per status, the reasons' counts combine as
    /// ``SetupItem/reasonsOverlap`` says: the largest of them when they overlap; otherwise their sum, capped at
    /// the verdicts of that status but never below the largest.
    func failing(_ item: SetupItem, rowCount: (VerdictRollup) -> Int = { $0.count }) -> Int {
        var byStatus: [String: [String: Int]] = [:]
        for row in rows(for: item) where row.status != "verified" {
            guard let reason = row.reason else { continue }
            let current = byStatus[row.status]?[reason] ?? 0
            byStatus[row.status, default: [:]][reason] = current.addingCount(rowCount(row))
        }
        var total = 0
        for (status, reasons) in byStatus {
            let largest = reasons.values.max() ?? 0
            if item.reasonsOverlap {
                total = total.addingCount(largest)
            } else {
                let sum = reasons.values.reduce(0) { $0.addingCount($1) }
                let cap = verdicts(item.provider, status: status)
                total = total.addingCount(max(largest, min(sum, cap)))
            }
        }
        return total
    }

    /// The item's reasons that were seen (a row with a positive count), in table order.
    func seenReasons(_ item: SetupItem) -> [String] {
        let seen = Set(rows(for: item).filter { $0.count > 0 && $0.status != "verified" }.compactMap(\.reason))
        return item.reasons.map(\.reason).filter { seen.contains($0) }
    }

    /// The values of `field` reported with the given rows, merged, by count (descending) then value (ascending).
    static func observed(in rows: [VerdictRollup], field: String) -> [ObservedValue] {
        var counts: [String: Int] = [:]
        for row in rows {
            for value in row.observed where value.field == field {
                counts[value.value] = (counts[value.value] ?? 0).addingCount(value.count)
            }
        }
        return sorted(counts, field: field)
    }

    /// Counts per value as observed values, by count (descending) then value (ascending).
    static func sorted(_ counts: [String: Int], field: String) -> [ObservedValue] {
        counts.map { ObservedValue(field: field, value: $0.key, count: $0.value) }
            .sorted { $0.count != $1.count ? $0.count > $1.count : $0.value < $1.value }
    }

    /// The values of `field` reported with the item's reasons (see ``observed(in:field:)``).
    ///
    /// Rows of different reasons can speak of the same verdicts, so the reasons' counts of one value combine
    /// as the item's counts do (``failing(_:rowCount:)``): the largest when the reasons overlap, else the sum.
    func observed(_ item: SetupItem, field: String? = nil) -> [ObservedValue] {
        let field = field ?? item.observedField
        var byStatus: [String: [String: [String: Int]]] = [:]   // status → value → reason → count
        for row in rows(for: item) where row.status != "verified" {
            guard let reason = row.reason else { continue }
            for value in row.observed where value.field == field {
                let current = byStatus[row.status]?[value.value]?[reason] ?? 0
                byStatus[row.status, default: [:]][value.value, default: [:]][reason] = current.addingCount(value.count)
            }
        }
        var counts: [String: Int] = [:]
        for values in byStatus.values {
            for (value, reasons) in values {
                let combined = item.reasonsOverlap
                    ? (reasons.values.max() ?? 0) : reasons.values.reduce(0) { $0.addingCount($1) }
                counts[value] = (counts[value] ?? 0).addingCount(combined)
            }
        }
        return Self.sorted(counts, field: field)
    }

    /// The values of `field` rolled up on a provider's status rows (whatever the reasons; App Attest's launches and
    /// receipts).
    func statusObserved(provider: String, field: String) -> [ObservedValue] {
        Self.observed(in: rows.filter { $0.provider == provider && $0.reason == nil }, field: field)
    }

    /// The values of `field` reported with any reason of a provider.
    func observed(provider: String, field: String) -> [ObservedValue] {
        Self.observed(in: rows.filter { $0.provider == provider && $0.reason != nil }, field: field)
    }
}

extension Int {
    /// Adds a count, reading a negative one as zero and saturating at `Int.max` instead of trapping.
    func addingCount(_ count: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(Swift.max(0, count))
        return overflow ? .max : sum
    }
}
