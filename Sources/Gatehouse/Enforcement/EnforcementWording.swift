/// The sentences of enforcement (the Traffic tab's "Your API", the dashboard's Enforcement page, the checklist).
public enum EnforcementWording {
    /// What each outcome means for the calls that had it, in a sentence's words.
    static let meanings: [(EnforcementOutcome, String)] = [
        (.missing, "came without a receipt (app versions without the SDK)"),
        (.invalid, "with an invalid one"),
        (.reused, "with a receipt spent before"),
        (.challenge, "with a challenge under attack mode"),
        (.unmet, "with one that does not meet the route's require"),
    ]

    /// "Enforcing payments now would have refused 3.1 % of last week's 41,200 calls: 2.8 % came without a receipt
    /// (app versions without the SDK), 0.3 % with an invalid one." (or that it would have refused none, or that no
    /// call came).
    ///
    /// A route in `enforce` is worded for what it refuses now ("Under enforce, payments refuses …"): its week may
    /// hold calls judged under `monitor` before the switch, which were not refused.
    public static func wouldRefuse(_ route: RouteOutcomes, days: Int = 7) -> String {
        let all = route.all
        let unmatched = route.name == EnforcementSettings.unmatched
        let subject = unmatched ? "the calls no route matches" : route.name
        let period = days == 7 ? "last week's" : "the last \(days) days'"
        guard all.total > 0 else {
            if unmatched { return route.mode == .off ? "Calls no route matches are not checked (mode off)." : "No call that no route matches was judged in the last \(days) days." }
            return route.mode == .off ? "\(route.name) is off: its calls are not checked." : "No call of \(route.name) was judged in the last \(days) days."
        }
        let calls = Wording.count(all.total, "call")
        let head = route.mode == .enforce ? "Under enforce, \(subject) would refuse" : "Enforcing \(subject) now would have refused"
        guard all.wouldRefuse > 0 else {
            return "\(head) none of \(period) \(calls): every one came with a valid receipt."
        }
        let parts = meanings.filter { all[$0.0] > 0 }.map { "\(percent(all[$0.0], of: all.total)) \($0.1)" }
        return "\(head) \(percent(all.wouldRefuse, of: all.total)) of \(period) \(calls): \(parts.joined(separator: ", "))."
    }

    /// A share with one decimal and a space before the sign: `"3.1 %"`; a share that is not nothing never reads 0.
    public static func percent(_ part: Int, of whole: Int) -> String {
        guard whole > 0, part > 0 else { return "0 %" }
        let tenths = (part * 1000 + whole / 2) / whole
        if tenths == 0 { return "under 0.1 %" }
        if tenths == 1000, part < whole { return "over 99.9 %" }
        return tenths % 10 == 0 ? "\(tenths / 10) %" : "\(tenths / 10).\(tenths % 10) %"
    }
}
