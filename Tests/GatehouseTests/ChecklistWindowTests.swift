import Testing
@testable import Gatehouse

@Suite("Checklist: the window and observed values")
struct ChecklistWindowTests {
    /// (hour of the row relative to now, whether it counts).
    static let hours: [(Int64, Bool)] = [
        (-3_600, true),                       // last hour
        (-F.week, true),                      // exactly seven days before now: in
        (-F.week + 3_600, true),
        (-F.week - 3_600, false),             // the hour before the window
        (-F.week - 1, false),
        (-30 * 86_400, false),                // a month ago
        (0, false),                           // the hour starting now: out (the window ends before now)
        (3_600, false),                       // the future
    ]

    @Test("a row counts when its hour lies in now - 7 days ..< now", arguments: hours)
    func window(_ hour: (Int64, Bool)) throws {
        let rows = F.week("play-integrity", verified: 0, failing: 100, status: "rejected",
                          reasons: ["certificateMismatch"], observed: [F.digest(F.playDigest, 100)],
                          hour: F.now + hour.0)
        let report = F.evaluate(F.complete, rows)
        #expect(report.windowFrom == F.now - F.week)
        #expect(report.windowTo == F.now)
        let item = try #require(report.item("android.certificateNotRegistered"))
        #expect(item.status == (hour.1 ? .fail : .ok))
        #expect(item.evidence.verdicts == (hour.1 ? 100 : 0))
        #expect(item.evidence.observed.isEmpty == !hour.1)
    }

    @Test("rows of several hours add up; old rows do not dilute the share")
    func hoursAddUp() throws {
        var rows: [VerdictRollup] = []
        for day in 0..<7 {
            rows += F.week("play-integrity", verified: 2, failing: 5, status: "rejected",
                           reasons: ["certificateMismatch"], hour: F.now - Int64(day) * 86_400 - 3_600)
        }
        rows += F.week("play-integrity", verified: 10_000, failing: 0, status: "rejected", reasons: [],
                       hour: F.now - F.week - 3_600)
        let item = try #require(F.evaluate(F.complete, rows).item("android.certificateNotRegistered"))
        #expect(item.evidence.failing == 35)
        #expect(item.evidence.verdicts == 49)
        #expect(item.status == .fail)
    }

    @Test("observed values: merged across rows, by count descending then value ascending, at most five")
    func observedOrderAndCap() throws {
        let counts: [(String, Int)] = [("C", 5), ("A", 9), ("B", 9), ("D", 1), ("E", 3), ("F", 7), ("G", 2)]
        var rows = F.week("play-integrity", verified: 0, failing: 30, status: "rejected",
                          reasons: ["packageNotRegistered"],
                          observed: counts.map { F.package("com.\($0.0)", $0.1) }, hour: F.lastHour)
        // The same package again an hour earlier: its counts add up and it moves up.
        rows += F.week("play-integrity", verified: 0, failing: 6, status: "rejected",
                       reasons: ["packageNotRegistered"], observed: [F.package("com.D", 6)],
                       hour: F.lastHour - 3_600)
        let item = try #require(F.evaluate(F.complete, rows).item("android.packageNotRegistered"))
        #expect(item.evidence.observed.map(\.value) == ["com.A", "com.B", "com.D", "com.F", "com.C"])
        #expect(item.evidence.observed.map(\.count) == [9, 9, 7, 7, 5])
        #expect(item.evidence.observed.allSatisfy { $0.field == "packageName" })
        #expect(item.detail.contains("Phones run com.A (9 verdicts)"))
        #expect(item.fix == "Register com.A under Android apps, with its signing certificate digests.")
    }

    @Test("an item shows only its own field and its own reasons' values")
    func observedField() throws {
        let rows = F.rollups("play-integrity", [
            F.Group(status: "rejected", reasons: ["certificateMismatch"], count: 50,
                    observed: [F.digest(F.playDigest, 50), F.package("com.example.app", 50)]),
            F.Group(status: "rejected", reasons: ["deviceIntegrityNotMet"], count: 50,
                    observed: [F.digest(F.strangerDigest, 50)]),
        ])
        let item = try #require(F.evaluate(F.complete, rows).item("android.certificateNotRegistered"))
        #expect(item.evidence.observed == [F.digest(F.playDigest, 50)])
    }
}
