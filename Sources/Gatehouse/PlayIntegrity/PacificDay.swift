import JSON

/// Google's day for Play Integrity quotas: the calendar day in Pacific time (America/Los_Angeles), whose midnight is
/// when the 10 000-a-day quota resets (play-integrity-checker-app#17). US daylight saving since 2007: from 02:00 on the
/// second Sunday of March (UTC−7) to 02:00 on the first Sunday of November (UTC−8). Pure arithmetic: no time zone data.
public struct PacificDay: Sendable, Equatable, Hashable {
    /// Days since 1970-01-01 of the Pacific calendar date.
    public let number: Int64

    /// The Pacific day of the instant `unix` (seconds).
    public init(of unix: Int64) {
        let local = unix + Self.offset(at: unix)
        number = Timestamp.floorDivide(local, 86_400)
    }

    /// `YYYY-MM-DD`.
    public var text: String {
        let (year, month, day) = Timestamp.civil(fromDays: number)
        return String(year) + "-" + (month < 10 ? "0" : "") + String(month) + "-" + (day < 10 ? "0" : "") + String(day)
    }

    /// The instant (unix seconds) the day starts.
    public var start: Int64 {
        let utcMidnight = number * 86_400
        // Midnight local is 7 or 8 hours after midnight UTC of the same date; the offset at that instant decides.
        let guess = utcMidnight + 8 * 3600
        return utcMidnight - Self.offset(at: guess)
    }

    /// Pacific time's offset from UTC at `unix`, in seconds (−7 or −8 hours).
    public static func offset(at unix: Int64) -> Int64 {
        let (year, _, _) = Timestamp.civil(fromDays: Timestamp.floorDivide(unix, 86_400))
        // 02:00 PST on the second Sunday of March is 10:00 UTC; 02:00 PDT on the first Sunday of November is 09:00 UTC.
        let dstStart = sunday(year: year, month: 3, nth: 2) * 86_400 + 10 * 3600
        let dstEnd = sunday(year: year, month: 11, nth: 1) * 86_400 + 9 * 3600
        return unix >= dstStart && unix < dstEnd ? -7 * 3600 : -8 * 3600
    }

    /// Days since 1970-01-01 of the `nth` Sunday of `month` in `year`.
    static func sunday(year: Int64, month: Int64, nth: Int64) -> Int64 {
        let first = Timestamp.days(fromCivil: year, month, 1)
        // 1970-01-01 was a Thursday (weekday 4, Sunday 0).
        let weekday = ((first + 4) % 7 + 7) % 7
        return first + (7 - weekday) % 7 + (nth - 1) * 7
    }
}
