import Storage

/// Play Integrity tokens judged per environment, Pacific day and package (`play_integrity_token_counts`): every
/// distinct token that decoded, locally or through Google, counted when it was first spent. Kept as long as the
/// Google decode counts.
enum PlayIntegrityTokenCountsTable {
    /// Counts one token of `packageName` at `now`.
    /// - Throws: `StorageError`.
    static func count(_ db: any SQLConnection, environmentID: String, packageName: String, now: Int64) throws {
        try db.execute(
            """
            INSERT INTO play_integrity_token_counts (environment_id, day, package_name, count) VALUES (?, ?, ?, 1)
            ON CONFLICT (environment_id, day, package_name) DO UPDATE SET count = play_integrity_token_counts.count + 1
            """,
            [.text(environmentID), .integer(GoogleDecodeCountsTable.day(of: now)), .text(packageName)])
    }

    /// The tokens counted per package for `environmentID` on the Pacific day of `now`.
    /// - Throws: `StorageError`.
    static func today(_ db: any SQLConnection, environmentID: String, now: Int64) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try db.forEachRow("SELECT package_name, count FROM play_integrity_token_counts WHERE environment_id = ? AND day = ?",
                          [.text(environmentID), .integer(GoogleDecodeCountsTable.day(of: now))]) { row in
            counts[try row.text("package_name")] = try row.int("count")
        }
        return counts
    }

    /// The largest count of any one package today, per environment (one query for all: the checklist).
    /// - Throws: `StorageError`.
    static func largestToday(_ db: any SQLConnection, now: Int64) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        try db.forEachRow("SELECT environment_id, MAX(count) AS n FROM play_integrity_token_counts WHERE day = ? GROUP BY environment_id",
                          [.integer(GoogleDecodeCountsTable.day(of: now))]) { row in
            counts[try row.text("environment_id")] = try row.int("n")
        }
        return counts
    }

    /// Deletes the counts of days older than the Google decode counts keep; returns how many rows.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64) throws -> Int {
        try db.query("DELETE FROM play_integrity_token_counts WHERE day < ? RETURNING day",
                     [.integer(GoogleDecodeCountsTable.day(of: now) - GoogleDecodeCountsTable.keptDays * 86_400)]).count
    }
}
