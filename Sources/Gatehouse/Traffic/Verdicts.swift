import Storage

/// Verdict traffic: ingest (raw rows for the retention window plus hourly rollups, in one transaction, once per
/// idempotency key), the week's checklist and chart (read from rollups only), and retention.
public struct Verdicts: Sendable {
    let store: Store
    /// Raw verdicts are kept this long, then deleted by `prune`.
    public static let rawRetention: Int64 = 8 * 86_400
    /// Rollups are kept this long.
    public static let rollupRetention: Int64 = 90 * 86_400
    /// Observed fields rolled up per setup reason, for the checklist's evidence.
    static let rolledUpFields = ["packageName", "certificateDigest", "appId", "attestationEnvironment", "appRecognitionVerdict", "appLicensingVerdict"]

    public init(store: Store) {
        self.store = store
    }

    /// Stores a validated batch for an environment. With an idempotency key already seen for this environment, stores
    /// nothing and returns the count accepted the first time.
    public func ingest(_ verdicts: [Verdict], environmentID: String, idempotencyKey: String? = nil) throws -> Int {
        let now = store.clock()
        // Everything that needs no database is done before taking the writer: the rows' values and the rollup sums.
        // The writer then only runs multi-row inserts, so concurrent batches queue for as short a time as possible.
        let environment = SQLValue.text(environmentID)
        var rows: [SQLValue] = []
        rows.reserveCapacity(verdicts.count * 7)
        var counts: [RollupKey: Int] = [:]
        var observed: [ObservedKey: Int] = [:]
        // Raw rows go in hour by hour (then in batch order), so that each hour's entries in the environment and hour
        // index are appended together rather than alternating between that index's pages.
        let hours = verdicts.map { $0.at - (($0.at % 3600) + 3600) % 3600 }
        let order = verdicts.indices.sorted { (hours[$0], $0) < (hours[$1], $1) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(512)
        // Most verdicts of a batch report the same few things: each distinct set is written once.
        var observedTexts: [[String: String]: String] = [:]
        for i in order {
            let v = verdicts[i], hour = hours[i]
            rows.append(environment)
            rows.append(.integer(v.at))
            rows.append(.text(v.platform))
            rows.append(.text(v.provider))
            rows.append(.text(v.status))
            rows.append(.text(Self.reasonsText(v.reasons, buffer: &buffer)))
            rows.append(.text(observedTexts[v.observed] ?? {
                let text = Self.observedText(v.observed, buffer: &buffer)
                observedTexts[v.observed] = text
                return text
            }()))
            counts[RollupKey(hour: hour, provider: v.provider, status: v.status, reason: ""), default: 0] += 1
            for reason in v.reasons {
                let key = RollupKey(hour: hour, provider: v.provider, status: v.status, reason: reason)
                counts[key, default: 0] += 1
                // What devices reported is evidence for setup items only; device reasons (a farm's random values)
                // would only grow the table the checklist reads.
                guard SetupReason(reason: reason, provider: v.provider) != nil else { continue }
                for field in Self.rolledUpFields {
                    if let value = v.observed[field] { observed[ObservedKey(rollup: key, field: field, value: value), default: 0] += 1 }
                }
                if v.observed["appRecognitionVerdict"] == "PLAY_RECOGNIZED", let digest = v.observed["certificateDigest"] {
                    observed[ObservedKey(rollup: key, field: ObservedValue.recognizedCertificateDigest, value: digest), default: 0] += 1
                }
            }
        }
        // Upserts go hour by hour, each near the one before in the primary key (the hour follows the environment).
        let rollupRows = counts.sorted { $0.key.hour < $1.key.hour }.flatMap { key, n in
            [environment, .integer(key.hour), .text(key.provider), .text(key.status), .text(key.reason), .integer(Int64(n))] as [SQLValue]
        }
        let observedRows = observed.sorted { $0.key.rollup.hour < $1.key.rollup.hour }.flatMap { key, n in
            [environment, .integer(key.rollup.hour), .text(key.rollup.provider), .text(key.rollup.status), .text(key.rollup.reason),
             .text(key.field), .text(key.value), .integer(Int64(n))] as [SQLValue]
        }
        // The week's cached rollups are stale once this commits.
        defer { store.rollupCache.invalidate(environmentID) }
        return try store.write { db in
            if let idempotencyKey {
                if let row = try db.queryOne("SELECT accepted FROM ingest_batches WHERE environment_id = ? AND idempotency_key = ?", [environment, .text(idempotencyKey)]) {
                    return try row.int("accepted")
                }
                try db.execute("INSERT INTO ingest_batches (environment_id, idempotency_key, accepted, created_at) VALUES (?, ?, ?, ?)",
                               [environment, .text(idempotencyKey), .integer(Int64(verdicts.count)), .integer(now)])
            }
            try Self.insert(db, "INSERT INTO verdicts (environment_id, at, platform, provider, status, reasons, observed)", columns: 7, rows)
            try Self.insert(db, "INSERT INTO verdict_rollups (environment_id, hour, provider, status, reason, count)", columns: 6, rollupRows,
                            then: " ON CONFLICT DO UPDATE SET count = count + excluded.count")
            try Self.insert(db, "INSERT INTO verdict_observed_rollups (environment_id, hour, provider, status, reason, field, value, count)", columns: 8, observedRows,
                            then: " ON CONFLICT DO UPDATE SET count = count + excluded.count")
            return verdicts.count
        }
    }

    /// Inserts `values` as rows of `columns` values, up to 100 rows per statement (a full chunk's statement is
    /// prepared once per connection and cached). `then` follows the VALUES list (an upsert clause).
    static func insert(_ db: any SQLConnection, _ head: String, columns: Int, _ values: [SQLValue], then tail: String = "") throws {
        let rowCount = values.count / columns
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ",") + ")"
        var start = 0
        while start < rowCount {
            let n = min(100, rowCount - start)
            let sql = head + " VALUES " + Array(repeating: row, count: n).joined(separator: ",") + tail
            try db.execute(sql, Array(values[(start * columns)..<((start + n) * columns)]))
            start += n
        }
    }

    /// The week's rollups of an environment, summed per (provider, status, reason) with their observed values:
    /// what the checklist reads. The cost depends on the number of distinct reasons, not of verdicts.
    ///
    /// The week is the hour of `now` and the 167 whole hours before it. The summed rows are stamped with the start of
    /// the first of those hours, which stays inside the checklist's window (`now - 7 days ..< now`) for every `now`
    /// in the same hour — so the sums can be cached for that hour.
    public func weekRollups(environmentID: String, now: Int64) throws -> [VerdictRollup] {
        let from = (now - ((now % 3600) + 3600) % 3600) + 3600 - ChecklistThresholds().windowSeconds
        return try store.read { db in
            var observed: [String: [ObservedValue]] = [:]
            try db.forEachRow(
                "SELECT provider, status, reason, field, value, SUM(count) AS n FROM verdict_observed_rollups WHERE environment_id = ? AND hour >= ? AND hour < ? GROUP BY provider, status, reason, field, value",
                [.text(environmentID), .integer(from), .integer(now)]
            ) { r in
                let key = "\(try r.text("provider"))|\(try r.text("status"))|\(try r.text("reason"))"
                observed[key, default: []].append(ObservedValue(field: try r.text("field"), value: try r.text("value"), count: try r.int("n")))
            }
            var rollups: [VerdictRollup] = []
            try db.forEachRow(
                "SELECT provider, status, reason, SUM(count) AS n FROM verdict_rollups WHERE environment_id = ? AND hour >= ? AND hour < ? GROUP BY provider, status, reason",
                [.text(environmentID), .integer(from), .integer(now)]
            ) { r in
                let provider = try r.text("provider"), status = try r.text("status"), reason = try r.text("reason")
                rollups.append(VerdictRollup(hour: from, provider: provider, status: status, reason: reason.isEmpty ? nil : reason,
                                             count: try r.int("n"), observed: observed["\(provider)|\(status)|\(reason)"] ?? []))
            }
            return rollups
        }
    }

    /// Verdict counts per day (UTC) and status over the last 7 days, oldest first, for the traffic chart.
    public func dailyCounts(environmentID: String, now: Int64) throws -> [(day: Int64, counts: [String: Int])] {
        let today = now - ((now % 86_400) + 86_400) % 86_400
        let from = today - 6 * 86_400
        var byDay: [Int64: [String: Int]] = [:]
        try store.read { db in
            try db.forEachRow(
                "SELECT (hour - hour % 86400) AS day, status, SUM(count) AS n FROM verdict_rollups WHERE environment_id = ? AND hour >= ? AND reason = '' GROUP BY day, status",
                [.text(environmentID), .integer(from)]
            ) { r in
                byDay[try r.integer("day"), default: [:]][try r.text("status")] = try r.int("n")
            }
        }
        return (0..<7).map { i in
            let day = from + Int64(i) * 86_400
            return (day, byDay[day] ?? [:])
        }
    }

    /// Deletes raw verdicts past their retention, rollups past theirs, and idempotency keys older than a day.
    @discardableResult
    public func prune() throws -> Int {
        let now = store.clock()
        return try store.write { db in
            // Raw verdicts are indexed by environment and hour only (Migrations/0002): each environment's old hours
            // are a range of that index. `at / 3600 <= cutoff hour` never drops a row `at < cutoff` selects, as
            // integer division is monotonic. Every verdict belongs to an existing environment (deleting one cascades).
            let cutoff = now - Self.rawRetention
            var deleted = 0
            for environment in try db.query("SELECT id FROM environments") {
                deleted += try db.execute("DELETE FROM verdicts WHERE environment_id = ? AND at / 3600 <= ? AND at < ?",
                                          [.text(try environment.text("id")), .integer(cutoff / 3600), .integer(cutoff)])
            }
            try db.execute("DELETE FROM verdict_rollups WHERE hour < ?", [.integer(now - Self.rollupRetention)])
            try db.execute("DELETE FROM verdict_observed_rollups WHERE hour < ?", [.integer(now - Self.rollupRetention)])
            try db.execute("DELETE FROM ingest_batches WHERE created_at < ?", [.integer(now - 86_400)])
            return deleted
        }
    }

    struct RollupKey: Hashable {
        var hour: Int64
        var provider: String
        var status: String
        var reason: String
    }

    struct ObservedKey: Hashable {
        var rollup: RollupKey
        var field: String
        var value: String
    }
}
