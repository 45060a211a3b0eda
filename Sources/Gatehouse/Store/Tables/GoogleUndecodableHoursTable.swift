import Storage

/// Calls to Google for tokens it could not decode, per environment and UTC hour (`google_undecodable_hours`), across
/// every server: what the hourly cap (`--google-undecodable-per-hour`) holds them to, so that no number of client
/// addresses sending distinct JWE-shaped junk can spend the day's quota; and the tokens refused because the cap was
/// reached, which the checklist names. Kept ``keptHours`` hours.
enum GoogleUndecodableHoursTable {
    /// How many hours of counts are kept.
    static let keptHours: Int64 = 48

    /// The start of the UTC hour of `now`.
    static func hour(of now: Int64) -> Int64 { now - ((now % 3600) + 3600) % 3600 }

    /// Counts one call Google answered with "not decodable" at `now`.
    /// - Throws: `StorageError`.
    static func countUndecodable(_ db: any SQLConnection, environmentID: String, now: Int64) throws {
        try db.execute(
            "INSERT INTO google_undecodable_hours (environment_id, hour, undecodable, refused) VALUES (?, ?, 1, 0) ON CONFLICT (environment_id, hour) DO UPDATE SET undecodable = google_undecodable_hours.undecodable + 1",
            [.text(environmentID), .integer(hour(of: now))])
    }

    /// Counts one token refused without a call because the hour's cap was reached.
    /// - Throws: `StorageError`.
    static func countRefused(_ db: any SQLConnection, environmentID: String, now: Int64) throws {
        try db.execute(
            "INSERT INTO google_undecodable_hours (environment_id, hour, undecodable, refused) VALUES (?, ?, 0, 1) ON CONFLICT (environment_id, hour) DO UPDATE SET refused = google_undecodable_hours.refused + 1",
            [.text(environmentID), .integer(hour(of: now))])
    }

    /// The undecodable calls counted for `environmentID` in the hour of `now`.
    /// - Throws: `StorageError`.
    static func thisHour(_ db: any SQLConnection, environmentID: String, now: Int64) throws -> Int {
        guard let row = try db.queryOne("SELECT undecodable FROM google_undecodable_hours WHERE environment_id = ? AND hour = ?",
                                        [.text(environmentID), .integer(hour(of: now))]) else { return 0 }
        return try row.int("undecodable")
    }

    /// The last hour within a day of `now` in which each environment refused tokens because of the cap.
    /// - Throws: `StorageError`.
    static func cappedHours(_ db: any SQLConnection, now: Int64) throws -> [String: CappedHour] {
        var capped: [String: CappedHour] = [:]
        try db.forEachRow("SELECT environment_id, hour, undecodable, refused FROM google_undecodable_hours WHERE hour > ? AND refused > 0 ORDER BY hour",
                          [.integer(now - 86_400)]) { row in
            capped[try row.text("environment_id")] = CappedHour(hour: try row.integer("hour"), undecodable: try row.int("undecodable"),
                                                                refused: try row.int("refused"))
        }
        return capped
    }

    /// Deletes the hours older than ``keptHours``; returns how many rows.
    /// - Throws: `StorageError`.
    static func purge(_ db: any SQLConnection, now: Int64) throws -> Int {
        try db.query("DELETE FROM google_undecodable_hours WHERE hour < ? RETURNING hour", [.integer(hour(of: now) - keptHours * 3600)]).count
    }
}

/// An hour in which the cap on Google calls for undecodable tokens refused tokens.
public struct CappedHour: Sendable, Equatable, Hashable {
    /// The start of the UTC hour (unix seconds).
    public var hour: Int64
    /// Calls Google could not decode in it.
    public var undecodable: Int
    /// Tokens answered `googleBudgetExceeded` without a call once the cap was reached.
    public var refused: Int

    public init(hour: Int64, undecodable: Int, refused: Int) {
        self.hour = hour
        self.undecodable = undecodable
        self.refused = refused
    }
}
