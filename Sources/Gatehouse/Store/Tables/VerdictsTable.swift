import Storage

/// The traffic tables: raw `verdicts` (a week), their hourly `verdict_rollups` and `verdict_observed_rollups`
/// (incremented, never overwritten, so two writers of one hour both count), and `ingest_batches` (idempotency keys).
enum VerdictsTable {
    /// How many verdicts the batch `idempotencyKey` of the environment accepted, if it was seen.
    static func acceptedBatch(_ db: any SQLConnection, environmentID: String, idempotencyKey: String) throws -> Int? {
        try db.queryOne("SELECT accepted FROM ingest_batches WHERE environment_id = ? AND idempotency_key = ?",
                        [.text(environmentID), .text(idempotencyKey)])?.int("accepted")
    }

    static func recordBatch(_ db: any SQLConnection, environmentID: String, idempotencyKey: String, accepted: Int, now: Int64) throws {
        try db.execute("INSERT INTO ingest_batches (environment_id, idempotency_key, accepted, created_at) VALUES (?, ?, ?, ?)",
                       [.text(environmentID), .text(idempotencyKey), .integer(Int64(accepted)), .integer(now)])
    }

    /// Inserts raw verdicts: `rows` holds 7 values per verdict (environment, at, platform, provider, status,
    /// reasons, observed).
    static func insert(_ db: any SQLConnection, rows: [SQLValue]) throws {
        try insert(db, "INSERT INTO verdicts (environment_id, at, platform, provider, status, reasons, observed)", columns: 7, rows)
    }

    /// Adds counts to the hourly rollups: 6 values per row (environment, hour, provider, status, reason, count).
    static func addRollups(_ db: any SQLConnection, rows: [SQLValue]) throws {
        db.wrote(.trafficRollups)
        try insert(db, "INSERT INTO verdict_rollups (environment_id, hour, provider, status, reason, count)", columns: 6, rows,
                   then: " ON CONFLICT (environment_id, hour, provider, status, reason) DO UPDATE SET count = verdict_rollups.count + excluded.count")
    }

    /// Adds counts to the observed-value rollups: 8 values per row (environment, hour, provider, status, reason,
    /// field, value, count).
    static func addObservedRollups(_ db: any SQLConnection, rows: [SQLValue]) throws {
        db.wrote(.trafficRollups)
        try insert(db, "INSERT INTO verdict_observed_rollups (environment_id, hour, provider, status, reason, field, value, count)", columns: 8, rows,
                   then: " ON CONFLICT (environment_id, hour, provider, status, reason, field, value) DO UPDATE SET count = verdict_observed_rollups.count + excluded.count")
    }

    /// Inserts `values` as rows of `columns` values, up to 100 rows per statement (a full chunk's statement is
    /// prepared once per connection and cached). `then` follows the VALUES list (an upsert clause). The text is
    /// built from placeholders only: every value is bound.
    private static func insert(_ db: any SQLConnection, _ head: String, columns: Int, _ values: [SQLValue], then tail: String = "") throws {
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

    /// Calls `body` with the observed values of the environment's rollups in `from ..< to`, summed per
    /// (provider, status, reason, field, value).
    static func observedSums(_ db: any SQLConnection, environmentID: String, from: Int64, to: Int64,
                             _ body: (_ provider: String, _ status: String, _ reason: String, _ field: String, _ value: String, _ count: Int) throws -> Void) throws {
        try db.forEachRow(
            "SELECT provider, status, reason, field, value, SUM(count) AS n FROM verdict_observed_rollups WHERE environment_id = ? AND hour >= ? AND hour < ? GROUP BY provider, status, reason, field, value",
            [.text(environmentID), .integer(from), .integer(to)]
        ) { r in
            try body(try r.text("provider"), try r.text("status"), try r.text("reason"), try r.text("field"), try r.text("value"), try r.int("n"))
        }
    }

    /// Calls `body` with the environment's rollups in `from ..< to`, summed per (provider, status, reason; the
    /// empty reason counts verdicts).
    static func sums(_ db: any SQLConnection, environmentID: String, from: Int64, to: Int64,
                     _ body: (_ provider: String, _ status: String, _ reason: String, _ count: Int) throws -> Void) throws {
        try db.forEachRow(
            "SELECT provider, status, reason, SUM(count) AS n FROM verdict_rollups WHERE environment_id = ? AND hour >= ? AND hour < ? GROUP BY provider, status, reason",
            [.text(environmentID), .integer(from), .integer(to)]
        ) { r in
            try body(try r.text("provider"), try r.text("status"), try r.text("reason"), try r.int("n"))
        }
    }

    /// Verdicts per UTC day (unix seconds of its midnight), provider and status since `from`: `body(day, provider,
    /// status, count)` for each.
    static func dailyCounts(_ db: any SQLConnection, environmentID: String, from: Int64,
                            _ body: (Int64, String, String, Int) throws -> Void) throws {
        try db.forEachRow(
            "SELECT (hour - hour % 86400) AS day, provider, status, SUM(count) AS n FROM verdict_rollups WHERE environment_id = ? AND hour >= ? AND reason = '' GROUP BY day, provider, status",
            [.text(environmentID), .integer(from)]
        ) { r in
            try body(try r.integer("day"), try r.text("provider"), try r.text("status"), try r.int("n"))
        }
    }

    /// Deletes the environment's raw verdicts before `cutoff`; returns how many. Raw verdicts are indexed by
    /// environment and hour only (Migrations/0002): the old hours are a range of that index, and
    /// `at / 3600 <= cutoff hour` never drops a row `at < cutoff` selects, as integer division is monotonic.
    static func deleteRaw(_ db: any SQLConnection, environmentID: String, before cutoff: Int64) throws -> Int {
        try db.execute("DELETE FROM verdicts WHERE environment_id = ? AND at / 3600 <= ? AND at < ?",
                       [.text(environmentID), .integer(cutoff / 3600), .integer(cutoff)])
    }

    /// Deletes rollups of hours before `cutoff`.
    static func deleteRollups(_ db: any SQLConnection, before cutoff: Int64) throws {
        db.wrote(.trafficRollups)
        try db.execute("DELETE FROM verdict_rollups WHERE hour < ?", [.integer(cutoff)])
        try db.execute("DELETE FROM verdict_observed_rollups WHERE hour < ?", [.integer(cutoff)])
    }

    /// Deletes idempotency keys recorded before `cutoff`.
    static func deleteBatches(_ db: any SQLConnection, before cutoff: Int64) throws {
        try db.execute("DELETE FROM ingest_batches WHERE created_at < ?", [.integer(cutoff)])
    }
}
