import Testing
@testable import Gatehouse

@Suite("Checklist: traffic summary")
struct ChecklistSummaryTests {
    @Test("verdicts per day of the window and status; rows outside the window left out")
    func days() throws {
        var rows = F.week("play-integrity", verified: 10, failing: 4, status: "rejected", reasons: ["unlicensed"],
                          hour: F.now - F.week)                       // first day
        rows += F.week("app-attest", verified: 3, failing: 2, status: "forged", reasons: ["counterReused"],
                       hour: F.now - 3_600)                           // last day
        rows += F.week("app-attest", verified: 0, failing: 5, status: "unavailable", reasons: [],
                       hour: F.now - 3_600)
        rows += F.week("play-integrity", verified: 99, failing: 99, status: "rejected", reasons: ["x"],
                       hour: F.now - F.week - 3_600)                  // before the window
        rows += F.week("play-integrity", verified: 99, failing: 0, status: "rejected", reasons: [], hour: F.now)
        let summary = Checklist.summarize(rollups: rows, now: F.now)
        #expect(summary.windowFrom == F.now - F.week)
        #expect(summary.days.count == 7)
        #expect(summary.days.map(\.start) == (0..<7).map { F.now - F.week + Int64($0) * 86_400 })
        #expect(summary.days[0] == TrafficDay(start: F.now - F.week, verified: 10, rejected: 4))
        #expect(summary.days[6] == TrafficDay(start: F.now - 86_400, verified: 3, forged: 2, unavailable: 5))
        #expect(summary.days[1 ... 5].allSatisfy { $0.total == 0 })
        let ios = Checklist.summarize(rollups: rows, now: F.now, provider: "app-attest")
        #expect(ios.days[0].total == 0)
        #expect(ios.days[6].total == 10)
    }

    @Test("top reasons: by count, then provider and reason; at most ten; setup reasons marked")
    func topReasons() {
        var groups: [F.Group] = []
        for index in 0..<12 {
            groups.append(F.Group(status: "rejected", reasons: ["device\(index)"], count: index % 4 + 1))
        }
        groups.append(F.Group(status: "rejected", reasons: ["certificateMismatch", "deviceIntegrityNotMet"], count: 50))
        groups.append(F.Group(status: "verified", reasons: ["ignored"], count: 500))
        let summary = Checklist.summarize(rollups: F.rollups("play-integrity", groups), now: F.now)
        #expect(summary.topReasons.count == 10)
        #expect(summary.topReasons.prefix(4).map(\.reason) == [
            "certificateMismatch", "deviceIntegrityNotMet", "device11", "device3",
        ])
        #expect(summary.topReasons.map(\.count) == [50, 50, 4, 4, 4, 3, 3, 3, 2, 2])
        #expect(summary.topReasons[0].setup)
        #expect(!summary.topReasons[1].setup)
        #expect(!summary.topReasons.contains { $0.reason == "ignored" })
    }
}
