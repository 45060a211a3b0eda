import Gatehouse
import JSON

/// The traffic page's charts as inline SVG, rendered on the server: one stacked bar per day (the first series at the
/// bottom: verdicts verified, rejected, forged, unavailable; or calls to the API by outcome) and a dashed line where
/// the configuration changed.
///
/// The markup carries class attributes only — no inline style, no colour — so `gatehouse.css` paints it from its
/// variables and it reads in light and dark alike. Every bar and line has a `<title>`; the page puts a table with
/// the same numbers beside it for screen readers.
struct TrafficChart: Sendable {
    /// One day's counts, one per series.
    struct Day: Sendable, Equatable {
        var start: Int64
        var counts: [Int]

        var total: Int { counts.reduce(0, +) }
    }

    /// A configuration change to mark on the time axis.
    struct Change: Sendable, Equatable {
        var at: Int64
        var label: String
    }

    /// The verdicts' statuses in stacking order, bottom first.
    static let statuses = ["verified", "rejected", "forged", "unavailable"]

    /// The series' names in stacking order, bottom first; each is also its bars' class.
    let series: [String]
    let days: [Day]
    let changes: [Change]
    /// The `id` of the chart's title (unique in the page) and what it says.
    let titleID: String
    let title: String

    init(series: [String] = statuses, days: [Day], changes: [Change], titleID: String = "chart-title",
         title: String = "Verdicts per day and status") {
        self.series = series
        self.days = days
        self.changes = changes
        self.titleID = titleID
        self.title = title
    }

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
            + "aria-labelledby=\"\(titleID)\" xmlns=\"http://www.w3.org/2000/svg\">"
        out += "<title id=\"\(titleID)\">\(Self.escape(title)), last \(days.count) days (UTC)</title>"
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
            out += "<g class=\"day\"><title>\(Self.escape(label)): \(Self.escape(summary(day)))</title>"
            var y = baseline
            for (status, count) in zip(series, day.counts) where count > 0 {
                let h = Double(count) / Double(scale) * plotHeight
                y -= h
                out += "<rect class=\"\(status)\" x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" width=\"\(Self.n(barWidth))\" "
                    + "height=\"\(Self.n(max(h, 0.5)))\"><title>\(Self.escape(label)): \(Wording.number(count)) \(status)</title></rect>"
            }
            let middle = Self.n(x + barWidth / 2)
            let (weekday, date) = Dates.dayLines(day.start)
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
    func summary(_ day: Day) -> String {
        zip(series, day.counts).map { "\(Wording.number($1)) \($0)" }.joined(separator: ", ")
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

    /// `"Tue 24 Nov"` for the UTC day starting at `start`.
    static func dayLabel(_ start: Int64) -> String {
        let (weekday, date) = Dates.dayLines(start)
        return "\(weekday) \(date)"
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
