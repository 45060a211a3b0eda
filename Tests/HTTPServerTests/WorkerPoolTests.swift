import Dispatch
import Glibc
import Locks
import Synchronization
import Testing
@testable import HTTPServer

@Suite("Worker pool")
struct WorkerPoolTests {
    /// A worker that sleeps in a `BlockingRegion` no longer counts as awake: with one worker to keep awake and no
    /// watchdog, the item queued behind it is taken by another worker at once. (Counted as awake, the blocked worker
    /// would hold the second item back until its own wait timed out.)
    @Test func aWorkerBlockedInABlockingRegionLetsAnotherTakeTheQueue() throws {
        let blocked = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let firstWasReleased = Mutex<Bool?>(nil)
        let pool = WorkerPool<Int, Void>(threads: 3, queueLimit: 8, awakeTarget: 1, watchdog: false, makeContext: {},
                                         work: { item, _ in
                                             if item == 1 {
                                                 blocked.signal()
                                                 let released = BlockingRegion.run { release.wait(timeout: .now() + .seconds(10)) == .success }
                                                 firstWasReleased.withLock { $0 = released }
                                                 finished.signal()
                                             } else {
                                                 release.signal()
                                             }
                                         }, idle: { _ in })
        try pool.start()
        defer {
            pool.stop()
            _ = pool.waitStopped(untilNanoseconds: HTTPServer.monotonicNanoseconds() + 10_000_000_000)
        }
        #expect(pool.submit(1))
        #expect(blocked.wait(timeout: .now() + .seconds(10)) == .success)
        #expect(pool.submit(2))
        #expect(finished.wait(timeout: .now() + .seconds(20)) == .success)
        #expect(firstWasReleased.withLock { $0 } == true)
    }

    /// Outside any pool (a test, the command line) a blocking region only runs its body.
    @Test func aBlockingRegionWithoutAPoolRunsItsBody() {
        #expect(BlockingRegion.run { 42 } == 42)
    }
}
