import Testing
@testable import Gatehouse

@Suite("Checklist: thresholds")
struct ChecklistThresholdTests {
    /// (failing, all verdicts, expected status).
    static let edges: [(Int, Int, ChecklistStatus)] = [
        (500, 1_000, .warn),   // exactly 50%: warn
        (501, 1_000, .fail),   // just over 50%: fail
        (200, 1_000, .warn),   // exactly 20%: warn
        (199, 1_000, .ok),     // just under 20%: ok
        (20, 40, .warn),       // exactly 50% at the minimum count
        (21, 41, .fail),       // just over 50%, 21 verdicts
        (20, 100, .warn),      // exactly 20% at the minimum count
        (20, 101, .ok),        // just under 20% at the minimum count
        (19, 19, .ok),         // 100%, but 19 verdicts never alert
        (19, 38, .ok),         // 50%, 19 verdicts
        (20, 20, .fail),       // 100%, 20 verdicts
        (20, 39, .fail),       // 51.3%, 20 verdicts
        (0, 0, .ok),
        (0, 1_000, .ok),
        (Int.max, Int.max, .fail), // no overflow at the edge of Int
        (Int.max / 2, Int.max, .warn),
    ]

    @Test("the status at the edges", arguments: edges)
    func status(_ edge: (Int, Int, ChecklistStatus)) {
        #expect(ChecklistThresholds.standard.status(failing: edge.0, of: edge.1) == edge.2)
    }

    @Test("the edges through the whole checklist, with a certificate mismatch", arguments: edges.filter { $0.1 < 10_000 && $0.1 > 0 })
    func throughTheChecklist(_ edge: (Int, Int, ChecklistStatus)) throws {
        let rows = F.week("play-integrity", verified: edge.1 - edge.0, failing: edge.0, status: "rejected",
                          reasons: ["certificateMismatch"], observed: [F.digest(F.playDigest, edge.0)])
        let item = try #require(F.evaluate(F.complete, rows).item("android.certificateNotRegistered"))
        #expect(item.status == edge.2)
        #expect(item.evidence.failing == edge.0)
        #expect(item.evidence.verdicts == edge.1)
    }

    @Test("the threshold shares are written so they read right: exactly 50% and just over differ")
    func edgeWording() throws {
        let atHalf = F.week("play-integrity", verified: 500, failing: 500, status: "rejected",
                            reasons: ["certificateMismatch"])
        let overHalf = F.week("play-integrity", verified: 9_999, failing: 10_001, status: "rejected",
                              reasons: ["certificateMismatch"])
        let half = try #require(F.evaluate(F.complete, atHalf).item("android.certificateNotRegistered"))
        let over = try #require(F.evaluate(F.complete, overHalf).item("android.certificateNotRegistered"))
        #expect(half.status == .warn)
        #expect(half.detail.hasPrefix("50% of Play Integrity verdicts this week (500 of 1,000)"))
        #expect(over.status == .fail)
        #expect(over.detail.hasPrefix("just over 50% of Play Integrity verdicts this week (10,001 of 20,000)"))
    }

    @Test("thresholds can be changed in one place")
    func customThresholds() throws {
        let strict = ChecklistThresholds(minimumFailing: 5, failAbovePercent: 10, warnFromPercent: 5)
        let rows = F.week("play-integrity", verified: 90, failing: 10, status: "rejected",
                          reasons: ["certificateMismatch"])
        let report = Checklist.evaluate(configuration: F.complete, rollups: rows, now: F.now, thresholds: strict)
        #expect(report.item("android.certificateNotRegistered")?.status == .warn)
        #expect(F.evaluate(F.complete, rows).item("android.certificateNotRegistered")?.status == .ok)
    }
}
