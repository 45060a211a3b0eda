import TestSupport
import DomainTesting
import Crypto
import Foundation
import Gatehouse
import Testing

/// The recorder queues verdicts from any number of threads and writes each to its own environment's rollups, none
/// lost and none twice.
@Suite("TrafficVerdict recorder")
final class VerdictRecorderTests: Sendable {
    let fixture: DomainFixture
    let now: Int64 = 1_790_000_000
    var domain: Domain { fixture.domain }

    init() throws {
        fixture = try DomainFixture(.sqlite, now: now) { $0.bufferHighWater = 10 }
    }

    @Test func concurrentRecordsAreWrittenOnceEachToTheirEnvironment() throws {
        let first = try domain.environments.create(name: "A", kind: .production, actor: .system).environment.id
        let second = try domain.environments.create(name: "B", kind: .production, actor: .system).environment.id
        let verdicts = domain.verdicts, recorder = domain.recorder
        let threads = 8, perThread = 500, now = self.now
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for i in 0..<perThread {
                let verified = i % 3 != 0
                let verdict = TrafficVerdict(at: now - 60, platform: "ios", provider: "app-attest", status: verified ? "verified" : "rejected",
                                      reasons: verified ? [] : ["counterReused"], observed: ["appId": "ABCDE12345.com.example.app"])
                recorder.record(verdict, environmentID: thread % 2 == 0 ? first : second)
            }
        }
        #expect(recorder.backlog == threads * perThread)
        #expect(recorder.flush() == threads * perThread)
        #expect(recorder.backlog == 0)
        #expect(recorder.flush() == 0)
        for environmentID in [first, second] {
            let rollups = try verdicts.weekRollups(environmentID: environmentID, now: now)
            let count = { (status: String, reason: String?) in
                rollups.first { $0.status == status && $0.reason == reason }?.count
            }
            let rejectedPerThread = (0..<perThread).filter { $0 % 3 == 0 }.count
            #expect(count("verified", nil) == threads / 2 * (perThread - rejectedPerThread))
            #expect(count("rejected", nil) == threads / 2 * rejectedPerThread)
            #expect(count("rejected", "counterReused") == threads / 2 * rejectedPerThread)
        }
    }

    /// Every job of the domain, in the one list and its order (SQLite: the checkpoint, and no following of other
    /// servers; receipts refreshed in the background).
    @Test func theDomainsJobsAreOneListInOrder() {
        #expect(domain.jobs.names == ["gh-verdicts", "gh-outcomes", "gh-purges", "gh-upkeep", "gh-key-status", "gh-alerts", "gh-webhooks",
                                      "gh-receipts-1", "gh-receipts-2", "gh-receipts-3", "gh-receipts", "gh-checkpoint"])
    }

    /// The recorder's job (`gh-verdicts`) writes each second on the domain's clock, and at once when the backlog
    /// reaches its high water (10 here), without waiting its second; the domain's stop writes what is left. Driven
    /// on the test clock: no thread, no sleep.
    @Test func pastHighWaterTheRecordersJobWritesWithoutWaitingItsSecond() throws {
        let environmentID = try domain.environments.create(name: "A", kind: .production, actor: .system).environment.id
        let recorder = domain.recorder, jobs = domain.jobs
        let verdict = TrafficVerdict(at: now - 60, platform: "ios", provider: "app-attest", status: "verified", reasons: [], observed: [:])
        // Every job runs once at first; the recorder's next run is a second away.
        recorder.record(verdict, environmentID: environmentID)
        #expect(jobs.runDue().contains("gh-verdicts"))
        #expect(recorder.backlog == 0, "the job's first run did not write the queue")
        for _ in 0..<9 { recorder.record(verdict, environmentID: environmentID) }
        #expect(jobs.runDue() == [], "nothing is due within the second, below the high water")
        #expect(recorder.backlog == 9)
        recorder.record(verdict, environmentID: environmentID)
        #expect(jobs.runDue() == ["gh-verdicts"], "high water did not wake the recorder's job")
        #expect(recorder.backlog == 0)
        for _ in 0..<2 { recorder.record(verdict, environmentID: environmentID) }
        fixture.clock.advance(by: 1)
        #expect(jobs.runDue().contains("gh-verdicts"), "a second on, the job runs")
        #expect(recorder.backlog == 0)
        recorder.record(verdict, environmentID: environmentID)
        domain.stop()
        #expect(recorder.backlog == 0, "the domain's stop writes what is left")
        let written = try domain.verdicts.weekRollups(environmentID: environmentID, now: now).first { $0.status == "verified" && $0.reason == nil }?.count
        #expect(written == 14)
    }
}
