import JSON
import Mustache

/// How the dashboard writes times, all in UTC and computed from the civil date (no formatter is made per call, and
/// none is shared across threads).
enum Dates {
    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Year, month (1…12), day, hour and minute of unix seconds, in UTC.
    static func parts(_ seconds: Int64) -> (year: Int, month: Int, day: Int, hour: Int, minute: Int, days: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400)
        let (year, month, day) = Timestamp.civil(fromDays: days)
        let inDay = Int(seconds - days * 86_400)
        return (Int(year), Int(month), Int(day), inDay / 3600, inDay % 3600 / 60, Int(days))
    }

    static func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// `30 Nov 2026, 03:00 UTC`.
    static func display(_ seconds: Int64) -> String {
        let p = parts(seconds)
        return "\(p.day) \(months[p.month - 1]) \(p.year), \(two(p.hour)):\(two(p.minute)) UTC"
    }

    /// `2026-11-24 14:05 UTC`.
    static func minute(_ seconds: Int64) -> String {
        let p = parts(seconds)
        return "\(p.year)-\(two(p.month))-\(two(p.day)) \(two(p.hour)):\(two(p.minute)) UTC"
    }

    /// `("Tue", "24 Nov")` for the UTC day of `seconds`.
    static func dayLines(_ seconds: Int64) -> (weekday: String, date: String) {
        let p = parts(seconds)
        return (weekdays[((p.days % 7) + 11) % 7], "\(p.day) \(months[p.month - 1])")  // 1970-01-01 was a Thursday
    }

    /// A time for a template: `{{iso}}` for `<time datetime>`, `{{text}}` for people (UTC, to the minute).
    static func value(_ seconds: Int64) -> MustacheValue {
        ["iso": .string(Timestamp.format(seconds)), "text": .string(minute(seconds))]
    }
}
