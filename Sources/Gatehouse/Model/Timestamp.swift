import Foundation

/// RFC 3339 times in UTC, as the API writes and reads them.
public enum Timestamp {
    /// `2026-11-30T03:00:00Z`.
    public static func format(_ seconds: Int64) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// Unix seconds of an RFC 3339 time (with or without fractional seconds, any offset), or nil.
    public static func parse(_ text: String) -> Int64? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: text) { return Int64(d.timeIntervalSince1970.rounded(.down)) }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return Int64(d.timeIntervalSince1970.rounded(.down)) }
        return nil
    }
}
