import Storage

/// The `enforcement_outcomes` table: judged calls per environment, hour, route, source and outcome, incremented
/// (never overwritten), so that several servers and backends add to one hour.
enum EnforcementOutcomesTable {
    /// One row to add.
    struct Row: Hashable {
        var environmentID: String
        var hour: Int64
        var route: String
        var source: OutcomeSource
        var outcome: EnforcementOutcome
    }

    /// Adds `counts` (up to 100 rows per statement).
    static func add(_ db: any SQLConnection, _ counts: [(row: Row, count: Int)]) throws {
        db.wrote(.trafficRollups)
        var start = 0
        while start < counts.count {
            let chunk = counts[start..<min(start + 100, counts.count)]
            let sql = "INSERT INTO enforcement_outcomes (environment_id, hour, route, source, outcome, count) VALUES "
                + Array(repeating: "(?,?,?,?,?,?)", count: chunk.count).joined(separator: ",")
                + " ON CONFLICT (environment_id, hour, route, source, outcome) DO UPDATE SET count = enforcement_outcomes.count + excluded.count"
            try db.execute(sql, chunk.flatMap { entry -> [SQLValue] in
                [.text(entry.row.environmentID), .integer(entry.row.hour), .text(entry.row.route), .text(entry.row.source.rawValue),
                 .text(entry.row.outcome.rawValue), .integer(Int64(entry.count))]
            })
            start += chunk.count
        }
    }

    /// Calls `body` with the environment's counts since `from` per hour, route, source and outcome (values this
    /// server does not know, which a newer one may have written, are skipped).
    static func counts(_ db: any SQLConnection, environmentID: String, from: Int64,
                       _ body: (_ hour: Int64, _ route: String, _ source: OutcomeSource, _ outcome: EnforcementOutcome, _ count: Int) throws -> Void) throws {
        try db.forEachRow(
            "SELECT hour, route, source, outcome, count FROM enforcement_outcomes WHERE environment_id = ? AND hour >= ?",
            [.text(environmentID), .integer(from)]
        ) { r in
            guard let source = OutcomeSource(rawValue: try r.text("source")), let outcome = EnforcementOutcome(rawValue: try r.text("outcome")) else { return }
            try body(try r.integer("hour"), try r.text("route"), source, outcome, try r.int("count"))
        }
    }

    /// Deletes hours before `before`.
    static func delete(_ db: any SQLConnection, before: Int64) throws {
        db.wrote(.trafficRollups)
        try db.execute("DELETE FROM enforcement_outcomes WHERE hour < ?", [.integer(before)])
    }
}
