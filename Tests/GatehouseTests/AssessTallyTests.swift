import DomainTesting
@testable import Gatehouse
import Testing

/// The attack-mode tally counts per minute and forgets what left the last hour.
@Suite("Assess tally")
struct AssessTallyTests {
    /// A new domain's tally.
    static func tally() throws -> AssessTally {
        try DomainFixture(.sqlite, now: 1_790_000_000).domain.assessTally
    }

    @Test func countsTheLastHourOnly() throws {
        let tally = try Self.tally()
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

    /// Counts from many threads at once all arrive (they go into different shards, folded when read).
    @Test func concurrentCountsAreAllCounted() async throws {
        let tally = try Self.tally()
        let now: Int64 = 1_790_000_040
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<8 {
                group.addTask {
                    for i in 0..<500 {
                        tally.count(environmentID: "env_a", platform: .ios, proven: i % 2 == 0, at: now)
                        tally.count(environmentID: "env_\(thread)", platform: .android, proven: true, at: now)
                    }
                }
            }
        }
        #expect(tally.lastHour(environmentID: "env_a", platform: .ios, now: now) == .init(requests: 4000, unproven: 2000))
        #expect(tally.lastHour(environmentID: "env_3", platform: .android, now: now) == .init(requests: 500, unproven: 0))
    }

    /// Over two and a half hours of counts, the last hour holds exactly the counts of its 60 minutes, whichever
    /// shard held them and whenever it folded them.
    @Test func theLastHourHoldsItsMinutesExactly() throws {
        let tally = try Self.tally()
        let start: Int64 = 1_790_000_000
        var counted: [(minute: Int64, proven: Bool)] = []
        for i in 0..<1050 {
            let now = start + Int64(i / 7) * 60 + Int64(i % 7)
            let proven = i % 3 != 0
            tally.count(environmentID: "env_a", platform: .ios, proven: proven, at: now)
            counted.append((now / 60, proven))
            if i % 100 == 99 {
                let hour = counted.filter { $0.minute > now / 60 - 60 }
                let expected = AssessTally.Counts(requests: hour.count, unproven: hour.filter { !$0.proven }.count)
                #expect(tally.lastHour(environmentID: "env_a", platform: .ios, now: now) == expected, "after \(i + 1) counts")
            }
        }
        let end = start + 150 * 60
        let hour = counted.filter { $0.minute > end / 60 - 60 }
        #expect(tally.lastHour(environmentID: "env_a", platform: .ios, now: end) == .init(requests: hour.count, unproven: hour.filter { !$0.proven }.count))
    }
}
