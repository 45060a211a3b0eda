extension Checklist {
    /// Calls a monitored route needs in the week before it is called ready.
    static let readyMinimumCalls = 100
    /// Below this share of the week's calls refused, a monitored route is ready to enforce.
    static let readyShare = 0.01
    /// Above this share of the last day's calls refused, an enforced route warns.
    static let refusingShare = 0.05

    /// One item per route in `monitor` and per route in `enforce` (docs/device-api.md "Outcomes"):
    /// `enforcement.ready.<route>` warns (to act) when a monitored route would have refused under 1 % of its calls
    /// for seven days, so it can be enforced; `enforcement.refusing.<route>` warns when an enforced route refused more
    /// than 5 % of the last day's calls (a new app version without the SDK, or a setup fault).
    static func enforcementItems(_ configuration: ChecklistConfiguration, from: Int64) -> [ChecklistItem] {
        configuration.enforcementRoutes.compactMap { route in
            switch route.mode {
            case .monitor?: ready(route, from: from)
            case .enforce?: refusing(route)
            default: nil
            }
        }
    }

    static func ready(_ route: RouteOutcomes, from: Int64) -> ChecklistItem {
        let id = "enforcement.ready.\(route.name)"
        let all = route.all
        let sentence = EnforcementWording.wouldRefuse(route)
        let fullWeek = route.firstHour.map { $0 < from + 86_400 } ?? false
        guard all.total >= readyMinimumCalls, fullWeek, route.wouldRefuseShare < readyShare else {
            let why = all.total < readyMinimumCalls ? "Too few calls yet to tell (\(Wording.number(all.total)) of the \(readyMinimumCalls) needed)."
                : !fullWeek ? "Calls were seen for less than seven days."
                : "Over 1 % would have been refused."
            return ChecklistItem(id: id, status: .ok, title: "\(route.name) is monitored", detail: "\(sentence) \(why)", fix: "",
                                 evidence: ChecklistEvidence())
        }
        return ChecklistItem(
            id: id, status: .warn, title: "\(route.name) is ready to enforce",
            detail: "\(sentence) That has held for seven days: the app versions still in use send receipts.",
            fix: "Switch \(route.name) to enforce (Enforcement tab), then watch this checklist for refusals the next day.",
            evidence: ChecklistEvidence())
    }

    static func refusing(_ route: RouteOutcomes) -> ChecklistItem {
        let id = "enforcement.refusing.\(route.name)"
        let day = route.lastDay
        let share = day.total == 0 ? 0 : Double(day.wouldRefuse) / Double(day.total)
        let counted = "\(EnforcementWording.percent(day.wouldRefuse, of: day.total)) of the last day's \(Wording.count(day.total, "call"))"
        guard share > refusingShare else {
            return ChecklistItem(id: id, status: .ok, title: "\(route.name) is enforced",
                                 detail: day.total == 0 ? "No call in the last day." : "Under enforce it refuses \(counted).", fix: "", evidence: ChecklistEvidence())
        }
        let missing = day[.missing] * 2 > day.wouldRefuse
        return ChecklistItem(
            id: id, status: .warn, title: "\(route.name) refuses too much",
            detail: "Under enforce, \(route.name) refuses \(counted)"
                + (missing ? ", most of them without a receipt: an app version without the Gatehouse SDK, or a client the route should not cover."
                    : ", most of them with a receipt that did not hold: a setup fault (a proxy that does not pass antibot-token or antibot-pop, a wrong environment's key) or an attack."),
            fix: "Look at the route's outcomes under Your API below; if real users are refused, switch it back to monitor on the Enforcement tab while you find the cause.",
            evidence: ChecklistEvidence())
    }
}
