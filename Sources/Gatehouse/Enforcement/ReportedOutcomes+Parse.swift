import JSON

extension ReportedOutcomes {
    /// Most entries in one report.
    public static let maxEntries = 1000
    /// Largest count of one entry.
    public static let maxCount = 1_000_000

    /// Reads a backend's report `{"counts": [{"route", "outcome", "hour", "count"}]}` (docs/device-api.md "Outcomes
    /// reported by a backend") received at `now`: every fault named by pointer.
    /// - Throws: ``ValidationError``.
    public static func parse(_ body: JSON, now: Int64) throws(ValidationError) -> [ReportedOutcomes] {
        guard let members = body.members else { throw ValidationError("", "must be a JSON object {\"counts\": […]}") }
        var errors = FieldErrors()
        for member in members where member.key != "counts" {
            errors.add(Pointer.join("", member.key), "is not a member of a report (expected counts)")
        }
        guard let entries = body["counts"]?.array else {
            errors.add("/counts", "must be an array of {route, outcome, hour, count}")
            throw ValidationError(errors.errors)
        }
        guard entries.count <= maxEntries else { throw ValidationError("/counts", "must hold at most \(maxEntries) entries: send the rest in another report") }
        // A backend whose clock runs a little ahead may report the next hour a moment early.
        let currentHour = EnforcementOutcomes.hour(of: now + Tables.clockSkewMargin)
        let oldest = currentHour - Verdicts.rawRetention
        var counts: [ReportedOutcomes] = []
        for (i, entry) in entries.enumerated() {
            let at = Pointer.join("/counts", i)
            guard let fields = entry.members else {
                errors.add(at, "must be an object {route, outcome, hour, count}")
                continue
            }
            for field in fields where !["route", "outcome", "hour", "count"].contains(field.key) {
                errors.add(Pointer.join(at, field.key), "is not a member of a count (expected route, outcome, hour and count)")
            }
            let route = entry["route"]?.string
            if route.map({ EnforcementRoute.isName($0) || $0 == EnforcementSettings.unmatched }) != true {
                errors.add(Pointer.join(at, "route"), "must be a route name ([a-z0-9][a-z0-9-]{0,39}) or \"(unmatched)\"")
            }
            let outcome = entry["outcome"]?.string.flatMap(EnforcementOutcome.init(rawValue:))
            if outcome == nil {
                errors.add(Pointer.join(at, "outcome"), "must be one of " + EnforcementOutcome.allCases.map(\.rawValue).joined(separator: ", "))
            }
            let hour = entry["hour"]?.string.flatMap(Timestamp.parse)
            if let hour, hour % 3600 == 0, hour <= currentHour, hour >= oldest {
                // on the hour, within retention
            } else {
                errors.add(Pointer.join(at, "hour"), "must be the start of an hour (RFC 3339, e.g. 2026-12-02T14:00:00Z), not in the future and at most 8 days old")
            }
            let count = entry["count"]?.integer
            if count.map({ (1...maxCount).contains($0) }) != true {
                errors.add(Pointer.join(at, "count"), "must be a whole number from 1 to \(maxCount)")
            }
            if let route, let outcome, let hour, let count, errors.isEmpty {
                counts.append(ReportedOutcomes(route: route, outcome: outcome, hour: hour, count: Int(count)))
            }
        }
        try errors.throwIfAny()
        return counts
    }
}
