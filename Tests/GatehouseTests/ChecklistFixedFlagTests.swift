import Testing
@testable import Gatehouse

/// Whether an item is fixed is the checklist's to say (the dashboard keeps fixed items in view), not a reading of
/// its title.
@Suite("Checklist: the fixed flag")
struct ChecklistFixedFlagTests {
    @Test("a fault is not fixed; the same week after the fix is", arguments: fixedCases)
    func fixedFlag(_ case_: FixedCase) throws {
        let fault = case_.fault
        let rows = F.week(fault.provider, verified: 40, failing: 60, status: fault.status, reasons: fault.reasons,
                          observed: fault.observed)
        let before = try #require(F.evaluate(fault.configuration, rows).item(fault.item.rawValue))
        #expect(!before.fixed)
        let after = try #require(F.evaluate(case_.fixed, rows).item(fault.item.rawValue))
        #expect(after.fixed)
    }

    @Test("a week without failures is ok and not fixed")
    func healthyIsNotFixed() throws {
        let rows = F.week("play-integrity", verified: 100, failing: 0, status: "rejected", reasons: [], observed: [])
        let items = F.evaluate(F.complete, rows).items
        #expect(!items.isEmpty)
        #expect(items.allSatisfy { !$0.fixed })
    }
}
