import Storage

/// Calls to Google's `decodeIntegrityToken` per environment and Pacific day (`google_decode_counts`), whatever Google
/// answered (a refusal counts against the quota too): what the checklist item `android.googleQuota` holds against
/// the environment's daily quota, and what the dashboard shows for today. Kept ``keptDays`` days.
enum GoogleDecodeCountsTable {
    /// How many days of counts are kept.
    static let keptDays: Int64 = 35

    /// The Pacific day of `now` (Google's quota day), as the unix seconds of that date's midnight UTC.
    static func day(of now: Int64) -> Int64 { PacificDay(of: now).number * 86_400 }

    /// Counts one call at `now`.
    /// - Throws: `StorageError`.
    static func count(_ db: any SQLConnection, environmentID: String, now: Int64) throws {
        try db.execute(
            "INSERT INTO google_decode_counts (environment_id, day, count) VALUES (?, ?, 1) ON CONFLICT (environment_id, day) DO UPDATE SET count = google_decode_counts.count + 1",
            [.text(environmentID), .integer(day(of: now))])
    }

    /// The calls counted for `environmentID` on the Pacific day of `now`.
    /// - Throws: `StorageError`.
    static func today(_ db: any SQLConnection, environmentID: String, now: Int64) throws -> Int {
        guard let row = try db.queryOne("SELECT count FROM google_decode_counts WHERE environment_id = ? AND day = ?",
                                        [.text(environmentID), .integer(day(of: now))]) else { return 0 }
        return try row.int("count")
    }

    /// Deletes the counts of days older than ``keptDays``; returns how many rows.
    /// - Throws: `StorageError`.
    /// Today's calls per environment (one query for all).
    static func all(_ db: any SQLConnection, now: Int64) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try db.forEachRow("SELECT environment_id, count FROM google_decode_counts WHERE day = ?", [.integer(day(of: now))]) { row in
            counts[try row.text("environment_id")] = try row.int("count")
        }
        return counts
    }

    static func purge(_ db: any SQLConnection, now: Int64) throws -> Int {
        try db.query("DELETE FROM google_decode_counts WHERE day < ? RETURNING day", [.integer(day(of: now) - keptDays * 86_400)]).count
    }
}
