import Gatehouse
import Testing

/// The checklist's enforcement items and the sentence of what enforcing would refuse (docs/device-api.md "Outcomes"):
/// a monitored route is ready after seven days under 1 % refused, an enforced route warns past 5 % refused in the
/// last day. Pure: figures in, items out.
@Suite("Checklist: enforcement")
struct ChecklistEnforcementTests {
    static let now: Int64 = 1_764_900_000
    static let weekStart = now - 7 * 86_400

    static func route(_ name: String, _ mode: EnforcementMode?, missing: Int = 0, invalid: Int = 0, verified: Int = 0,
                      lastDay: (refused: Int, verified: Int) = (0, 0), firstHour: Int64? = weekStart) -> RouteOutcomes {
        var route = RouteOutcomes(name: name)
        route.mode = mode
        route.edge[.missing] = missing
        route.edge[.invalid] = invalid
        route.edge[.verified] = verified
        route.lastDay[.missing] = lastDay.refused
        route.lastDay[.verified] = lastDay.verified
        route.firstHour = firstHour
        return route
    }

    static func items(_ routes: [RouteOutcomes]) -> [String: ChecklistItem] {
        let report = Checklist.evaluate(configuration: ChecklistConfiguration(enforcementRoutes: routes), rollups: [], now: now)
        return Dictionary(uniqueKeysWithValues: report.items.filter { $0.id.hasPrefix("enforcement.") }.map { ($0.id, $0) })
    }

    @Test func aMonitoredRouteUnderOnePercentForSevenDaysIsReady() throws {
        let items = Self.items([
            Self.route("ready", .monitor, missing: 9, verified: 991),
            Self.route("toomuch", .monitor, missing: 10, verified: 990),        // 1.0 %: not under 1 %
            Self.route("young", .monitor, missing: 0, verified: 1000, firstHour: Self.now - 3 * 86_400),
            Self.route("quiet", .monitor, verified: 99),
            Self.route("off", .off, missing: 1000),
        ])
        #expect(items["enforcement.ready.ready"]?.status == .warn)
        #expect(items["enforcement.ready.ready"]?.title == "ready is ready to enforce")
        #expect(items["enforcement.ready.ready"]?.detail.hasPrefix("Enforcing ready now would have refused 0.9 % of last week's 1,000 calls: 0.9 % came without a receipt") == true)
        #expect(items["enforcement.ready.toomuch"]?.status == .ok)
        #expect(items["enforcement.ready.young"]?.status == .ok)
        #expect(items["enforcement.ready.young"]?.detail.hasSuffix("Calls were seen for less than seven days.") == true)
        #expect(items["enforcement.ready.quiet"]?.status == .ok)
        #expect(items["enforcement.ready.off"] == nil && items["enforcement.refusing.off"] == nil, "an off route has no item")
    }

    @Test func anEnforcedRouteRefusingOverFivePercentOfTheLastDayWarns() throws {
        let items = Self.items([
            Self.route("pay", .enforce, missing: 60, verified: 940, lastDay: (refused: 6, verified: 94)),
            Self.route("calm", .enforce, missing: 60, verified: 940, lastDay: (refused: 5, verified: 95)),
        ])
        let pay = try #require(items["enforcement.refusing.pay"])
        #expect(pay.status == .warn)
        #expect(pay.detail.hasPrefix("Under enforce, pay refuses 6 % of the last day's 100 calls, most of them without a receipt"))
        #expect(items["enforcement.refusing.calm"]?.status == .ok, "5 % is not more than 5 %")
    }

    @Test(arguments: [
        (0, 0, "0 %"), (1, 1000, "0.1 %"), (1, 100_000, "under 0.1 %"), (31, 1000, "3.1 %"), (1, 3, "33.3 %"), (5, 100, "5 %"),
        (99_999, 100_000, "over 99.9 %"), (7, 7, "100 %"),
    ])
    func percents(_ part: Int, _ whole: Int, _ text: String) {
        #expect(EnforcementWording.percent(part, of: whole) == text)
    }

    @Test func theSentenceNamesEachRefusedOutcome() {
        var route = RouteOutcomes(name: "payments")
        route.mode = .monitor
        #expect(EnforcementWording.wouldRefuse(route) == "No call of payments was judged in the last 7 days.")
        route.edge[.verified] = 39_920
        #expect(EnforcementWording.wouldRefuse(route) == "Enforcing payments now would have refused none of last week's 39,920 calls: every one came with a valid receipt.")
        route.edge[.missing] = 1_154
        route.backend[.invalid] = 126
        #expect(EnforcementWording.wouldRefuse(route)
                == "Enforcing payments now would have refused 3.1 % of last week's 41,200 calls: 2.8 % came without a receipt (app versions without the SDK), 0.3 % with an invalid one.")
        route.mode = .enforce
        #expect(EnforcementWording.wouldRefuse(route).hasPrefix("Under enforce, payments would refuse 3.1 % of last week's 41,200 calls: 2.8 %"),
                "the week may hold calls monitored before the switch: the sentence says what enforce refuses, not what it did")
        route.edge = OutcomeCounts()
        route.backend = OutcomeCounts()
        route.name = EnforcementSettings.unmatched
        route.mode = .off
        #expect(EnforcementWording.wouldRefuse(route) == "Calls no route matches are not checked (mode off).")
    }
}
