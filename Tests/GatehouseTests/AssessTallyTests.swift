@testable import Gatehouse
import Testing

/// The attack-mode tally counts per minute and forgets what left the last hour.
@Suite("Assess tally")
struct AssessTallyTests {
    @Test func countsTheLastHourOnly() {
        let tally = AssessTally()
        let start: Int64 = 1_790_000_040
        tally.count(environmentID: "env_a", platform: .ios, proven: true, at: start)
        tally.count(environmentID: "env_a", platform: .ios, proven: false, at: start + 1)
        tally.count(environmentID: "env_a", platform: .ios, proven: false, at: start + 30 * 60)
        tally.count(environmentID: "env_a", platform: .android, proven: false, at: start + 30 * 60)
        tally.count(environmentID: "env_b", platform: .ios, proven: false, at: start + 30 * 60)
        #expect(tally.lastHour(environmentID: "env_a", platform: .ios, now: start + 30 * 60) == .init(requests: 3, unproven: 2))
        // An hour after the first minute, its two requests are gone, also from the counts kept.
        let later = start + 60 * 60
        tally.count(environmentID: "env_a", platform: .ios, proven: true, at: later)
        #expect(tally.lastHour(environmentID: "env_a", platform: .ios, now: later) == .init(requests: 2, unproven: 1))
        #expect(tally.lastHour(environmentID: "env_a", platform: .android, now: later) == .init(requests: 1, unproven: 1))
        #expect(tally.lastHour(environmentID: "env_b", platform: .ios, now: later + 30 * 60) == .init(requests: 0, unproven: 0))
    }
}
