import Gatehouse
import JSON

/// The traffic page's chart as inline SVG, rendered on the server: one stacked bar per day (verified at the bottom,
/// then rejected, forged, unavailable) and a dashed line where the configuration changed.
///
/// The markup carries class attributes only — no inline style, no colour — so `gatehouse.css` paints it from its
/// variables and it reads in light and dark alike. Every bar and line has a `<title>`; the page puts a table with
/// the same numbers beside it for screen readers.
struct TrafficChart: Sendable {
    /// One day's verdicts by status.
    struct Day: Sendable, Equatable {
        var start: Int64
        var verified: Int
        var rejected: Int
        var forged: Int
        var unavailable: Int

        var total: Int { verified + rejected + forged + unavailable }
    }

    /// A configuration change to mark on the time axis.
    struct Change: Sendable, Equatable {
        var at: Int64
        var label: String
    }

    /// The statuses in stacking order, bottom first.
    static let statuses = ["verified", "rejected", "forged", "unavailable"]

    let days: [Day]
    let changes: [Change]

    // Geometry of the viewBox.
    static let width = 720.0, height = 240.0
    static let left = 46.0, right = 10.0, top = 12.0, bottom = 52.0

    /// The `<svg>` element.
    func svg() -> String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let baseline = Self.top + plotHeight
        let scale = Self.niceMaximum(days.map(\.total).max() ?? 0)
        let slot = days.isEmpty ? plotWidth : plotWidth / Double(days.count)
        let barWidth = (slot * 0.58).rounded()
        var out = "<svg class=\"chart\" viewBox=\"0 0 \(Self.n(Self.width)) \(Self.n(Self.height))\" role=\"img\" "
            + "aria-labelledby=\"chart-title\" xmlns=\"http://www.w3.org/2000/svg\">"
        out += "<title id=\"chart-title\">Verdicts per day and status, last \(days.count) days (UTC)</title>"
        // Grid lines and the y axis labels: 0, half, the top.
        for fraction in [0.0, 0.5, 1.0] {
            let y = baseline - fraction * plotHeight
            let value = Int((Double(scale) * fraction).rounded())
            out += "<line class=\"\(fraction == 0 ? "axis" : "grid")\" x1=\"\(Self.n(Self.left))\" y1=\"\(Self.n(y))\" "
                + "x2=\"\(Self.n(Self.width - Self.right))\" y2=\"\(Self.n(y))\"/>"
            out += "<text class=\"tick\" x=\"\(Self.n(Self.left - 6))\" y=\"\(Self.n(y + 4))\" text-anchor=\"end\">"
                + "\(Self.escape(Self.compact(value)))</text>"
        }
        for (index, day) in days.enumerated() {
            let x = Self.left + slot * Double(index) + (slot - barWidth) / 2
            let label = Self.dayLabel(day.start)
            out += "<g class=\"day\"><title>\(Self.escape(label)): \(Self.escape(Self.summary(day)))</title>"
            var y = baseline
            for (status, count) in zip(Self.statuses, [day.verified, day.rejected, day.forged, day.unavailable]) where count > 0 {
                let h = Double(count) / Double(scale) * plotHeight
                y -= h
                out += "<rect class=\"\(status)\" x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(barWidth))\" "
                    + "height=\"\(Self.n(max(h, 0.5)))\"><title>\(Self.escape(label)): \(Checklist.number(count)) \(status)</title></rect>"
            }
            let middle = Self.n(x + barWidth / 2)
            let (weekday, date) = Self.dayLabelLines(day.start)
            out += "<text class=\"label\" x=\"\(middle)\" y=\"\(Self.n(baseline + 2))\" text-anchor=\"middle\">"
                + "<tspan x=\"\(middle)\" dy=\"1.1em\">\(weekday)</tspan><tspan x=\"\(middle)\" dy=\"1.15em\">\(date)</tspan></text></g>"
        }
        if let first = days.first {
            let span = Double(days.count * 86_400)
            for change in changes {
                let offset = Double(change.at - first.start) / span
                guard offset >= 0, offset <= 1 else { continue }
                let x = Self.left + offset * plotWidth
                out += "<line class=\"change\" x1=\"\(Self.n(x))\" y1=\"\(Self.n(Self.top))\" x2=\"\(Self.n(x))\" "
                    + "y2=\"\(Self.n(baseline))\"><title>\(Self.escape(change.label))</title></line>"
            }
        }
        return out + "</svg>"
    }

    /// `"12 verified, 30 rejected, 2 forged, 0 unavailable"`.
    static func summary(_ day: Day) -> String {
        zip(statuses, [day.verified, day.rejected, day.forged, day.unavailable])
            .map { "\(Checklist.number($1)) \($0)" }.joined(separator: ", ")
    }

    /// The smallest of 1, 2, 5 × 10ⁿ (n ≥ 0) at or above `value`; at least 10, so an empty week has an axis.
    static func niceMaximum(_ value: Int) -> Int {
        var magnitude = 1
        while true {
            for step in [1, 2, 5] where step * magnitude >= max(value, 10) { return step * magnitude }
            let (next, overflow) = magnitude.multipliedReportingOverflow(by: 10)
            if overflow { return Int.max }
            magnitude = next
        }
    }

    /// `950` → `"950"`, `1500` → `"1.5k"`, `2000000` → `"2M"`.
    static func compact(_ value: Int) -> String {
        func trimmed(_ v: Double, _ suffix: String) -> String {
            let rounded = (v * 10).rounded() / 10
            return (rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)) + suffix
        }
        if value >= 1_000_000 { return trimmed(Double(value) / 1_000_000, "M") }
        if value >= 1_000 { return trimmed(Double(value) / 1_000, "k") }
        return String(value)
    }

    static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `"Tue 24 Nov"` for the UTC day starting at `start`.
    static func dayLabel(_ start: Int64) -> String {
        let (weekday, date) = dayLabelLines(start)
        return "\(weekday) \(date)"
    }

    /// `("Tue", "24 Nov")` for the UTC day starting at `start`: the axis label's two lines.
    static func dayLabelLines(_ start: Int64) -> (weekday: String, date: String) {
        let days = Int(start.dividingFloor(by: 86_400))
        let weekday = weekdays[((days % 7) + 11) % 7]  // 1970-01-01 was a Thursday
        let (_, month, day) = civil(days)
        return (weekday, "\(day) \(months[month - 1])")
    }

    /// `"2026-11-24 14:05 UTC"`.
    static func time(_ at: Int64) -> String {
        let days = Int(at.dividingFloor(by: 86_400))
        let seconds = Int(at - Int64(days) * 86_400)
        let (year, month, day) = civil(days)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(seconds / 3600)):\(two(seconds % 3600 / 60)) UTC"
    }

    /// A coordinate with at most one decimal.
    static func n(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    /// Escapes text for XML content and attributes.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    func dividingFloor(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}

extension TrafficChart {
    /// Year, month (1…12) and day of a count of days since 1970-01-01.
    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let (year, month, day) = Timestamp.civil(fromDays: Int64(days))
        return (Int(year), Int(month), Int(day))
    }
}
