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
    var store: Store { fixture.domain.store }

    init() throws {
        fixture = try DomainFixture(.sqlite, now: now)
    }

    @Test func concurrentRecordsAreWrittenOnceEachToTheirEnvironment() throws {
        let environments = Environments(store: store)
        let first = try environments.create(name: "A", kind: .production, actor: .system).environment.id
        let second = try environments.create(name: "B", kind: .production, actor: .system).environment.id
        let verdicts = Verdicts(store: store)
        let recorder = VerdictRecorder(verdicts: verdicts, highWater: 1_000_000)
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

    /// The recorder runs on a ``PeriodicJob``: started with an hour's interval, it still writes at once when the
    /// backlog reaches its high water (the job is woken), and `stop()` writes what is left.
    @Test func pastHighWaterTheRunningRecorderWritesWithoutWaitingItsInterval() throws {
        let environmentID = try Environments(store: store).create(name: "A", kind: .production, actor: .system).environment.id
        let verdicts = Verdicts(store: store)
        let recorder = VerdictRecorder(verdicts: verdicts, interval: .seconds(3600), highWater: 10)
        let verdict = TrafficVerdict(at: now - 60, platform: "ios", provider: "app-attest", status: "verified", reasons: [], observed: [:])
        /// Waits (up to 30 s) until nothing is queued; whether it came to that.
        func drained() -> Bool { waitUntil(seconds: 30) { recorder.backlog == 0 } != nil }
        // The job's first run, at start, writes this one; the next run is an hour away.
        recorder.record(verdict, environmentID: environmentID)
        recorder.start()
        #expect(drained(), "the job's first run did not write the queue")
        for _ in 0..<10 { recorder.record(verdict, environmentID: environmentID) }
        #expect(drained(), "high water did not wake the recorder's job")
        for _ in 0..<3 { recorder.record(verdict, environmentID: environmentID) }
        recorder.stop()
        #expect(recorder.backlog == 0)
        let written = try verdicts.weekRollups(environmentID: environmentID, now: now).first { $0.status == "verified" && $0.reason == nil }?.count
        #expect(written == 14)
    }
}
