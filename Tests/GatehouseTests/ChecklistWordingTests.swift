import Testing
@testable import Gatehouse

@Suite("Checklist: wording")
struct ChecklistWordingTests {
    @Test("numbers are grouped by thousands",
          arguments: [(0, "0"), (7, "7"), (999, "999"), (1_000, "1,000"), (1_204, "1,204"), (1_450, "1,450"),
                      (12_345_678, "12,345,678"), (-1_500, "-1,500"), (Int.max, "9,223,372,036,854,775,807")])
    func numbers(_ row: (Int, String)) {
        #expect(Wording.number(row.0) == row.1)
    }

    @Test("shares read right, never a round figure they are not",
          arguments: [(1_204, 1_450, "83%"), (500, 1_000, "50%"), (501, 1_000, "50.1%"), (499, 1_000, "49.9%"),
                      (200, 1_000, "20%"), (199, 1_000, "19.9%"), (1, 1_000, "0.1%"), (1, 100_000, "just over 0%"),
                      (999, 1_000, "99.9%"), (99_999, 100_000, "just under 100%"), (1, 3, "33%"), (2, 3, "67%"),
                      (0, 10, "0%"), (5, 0, "0%"), (10, 10, "100%"), (Int.max, Int.max, "100%"),
                      (Int.max / 3, Int.max, "33%")])
    func percents(_ row: (Int, Int, String)) {
        #expect(Wording.percent(row.0, of: row.1) == row.2)
    }

    @Test("lists", arguments: [([String](), ""), (["a"], "a"), (["a", "b"], "a or b"), (["a", "b", "c"], "a, b or c")])
    func lists(_ row: ([String], String)) {
        #expect(Wording.list(row.0) == row.1)
    }

    @Test("app ids split at the first dot", arguments: [
        ("A1B2C3D4E5.com.example.app", "A1B2C3D4E5", "com.example.app"), ("nodot", "", "nodot"), (".x", "", "x"),
    ])
    func appIds(_ row: (String, String, String)) {
        let split = Checklist.split(appId: row.0)
        #expect(split.prefix == row.1)
        #expect(split.bundle == row.2)
    }

    @Test("every item that is not ok says what to do; every item says what was seen")
    func everyItemIsWorded() {
        var rows: [VerdictRollup] = []
        for fault in setupFaults {
            rows += F.week(fault.provider, verified: 0, failing: 100, status: fault.status, reasons: fault.reasons,
                           observed: fault.observed)
        }
        let configurations = [F.complete, ChecklistConfiguration(attackMode: true), ChecklistConfigurationTests.iosOnly]
        for configuration in configurations {
            for item in F.evaluate(configuration, rows).items {
                #expect(!item.title.isEmpty)
                #expect(item.detail.hasSuffix("."), "\(item.id): \(item.detail)")
                #expect(item.status == .ok ? item.fix.isEmpty : item.fix.hasSuffix("."), "\(item.id): \(item.fix)")
            }
        }
    }
}
