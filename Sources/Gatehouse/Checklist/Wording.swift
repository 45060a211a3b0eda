import JSON
/// How Gatehouse writes numbers, counts and lists for a person (no Foundation, no locale: English, comma groups):
/// the checklist's sentences and the dashboard's pages alike.
public enum Wording {
    /// `1204` → `"1,204"`.
    public static func number(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// A time as the checklist writes it: `2026-12-03 12:34 UTC`.
    static func time(_ seconds: Int64) -> String {
        let text = Timestamp.format(seconds)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5)) + " UTC"
    }

    /// A share as a percentage: whole percents, rounded half up, unless rounding would land on a value the
    /// reader takes literally (0%, 20%, 50%, 100%) when the share is not exactly that; then one decimal
    /// (`"50.1%"`, `"0.2%"`), and where even that would read as the round value, `"just over 50%"` or
    /// `"just under 20%"` — so a failure never reads "50%" and a handful never reads "0%".
    public static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0, part > 0 else { return "0%" }
        let part = min(part, whole)
        let (percent, exact) = rounded(part, of: whole, scale: 100)
        if exact || ![0, 20, 50, 100].contains(percent) { return "\(percent)%" }
        let (tenths, _) = rounded(part, of: whole, scale: 1_000)
        if tenths % 10 != 0 { return "\(tenths / 10).\(tenths % 10)%" }
        let round = tenths / 10
        let above = ChecklistThresholds.percent(part, exceeds: round, of: whole)
        return above ? "just over \(round)%" : "just under \(round)%"
    }

    /// `part × scale / whole` for `0 ≤ part ≤ whole`, rounded half up, and whether the division was exact;
    /// in full width, so it never overflows.
    private static func rounded(_ part: Int, of whole: Int, scale: Int) -> (Int, Bool) {
        let (quotient, remainder) = whole.dividingFullWidth(part.multipliedFullWidth(by: scale))
        return (remainder >= whole - remainder ? quotient + 1 : quotient, remainder == 0)
    }

    /// `["a"]` → `"a"`, `["a", "b"]` → `"a or b"`, `["a", "b", "c"]` → `"a, b or c"`.
    static func list(_ values: [String], conjunction: String = "or") -> String {
        switch values.count {
        case 0: return ""
        case 1: return values[0]
        default: return values.dropLast().joined(separator: ", ") + " \(conjunction) " + (values.last ?? "")
        }
    }

    /// `"1 verdict"`, `"3 verdicts"`; with `zero`, none is written that way (`"no verdicts"`).
    public static func count(_ value: Int, _ singular: String, _ plural: String? = nil, zero: String? = nil) -> String {
        "\(value == 0 ? zero ?? "0" : number(value)) \(value == 1 ? singular : (plural ?? singular + "s"))"
    }

    /// Observed values as `"A (12), B (3)"`.
    static func observed(_ values: [ObservedValue]) -> String {
        values.map { "\($0.value) (\(count($0.count, "verdict")))" }.joined(separator: ", ")
    }

    /// Registered values for a sentence, or `none` when there are none.
    static func registered(_ values: [String]) -> String {
        values.isEmpty ? "none" : values.joined(separator: ", ")
    }
}
