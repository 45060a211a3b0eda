import Foundation
import Synchronization
import Testing
@testable import SQLite

/// The writer's lock serves waiters in the order they arrived, and never lets two threads in at once.
@Suite struct FairLockTests {
    final class Order: Sendable {
        let taken = Mutex<[Int]>([])
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
    }

    @Test func waitersGetTheLockInArrivalOrder() throws {
        let lock = FairLock()
        let order = Order()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        // The first thread holds the lock until told to let go.
        done.enter()
        Thread.detachNewThread {
            lock.withLock {
                holding.signal()
                release.wait()
            }
            done.leave()
        }
        holding.wait()
        // Five more arrive one after another, each queued before the next starts.
        for index in 1...5 {
            done.enter()
            Thread.detachNewThread {
                lock.withLock { order.taken.withLock { $0.append(index) } }
                done.leave()
            }
            let deadline = Date().addingTimeInterval(5)
            while lock.waiting < index && Date() < deadline { usleep(100) }
            try #require(lock.waiting == index)
        }
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(order.taken.withLock { $0 } == [1, 2, 3, 4, 5])
    }

    @Test func neverTwoInsideAtOnce() {
        let lock = FairLock()
        let order = Order()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<2_000 {
                lock.withLock {
                    if order.inside.add(1, ordering: .relaxed).newValue > 1 { order.overlapped.store(true, ordering: .relaxed) }
                    order.taken.withLock { $0.append(0) }
                    order.inside.subtract(1, ordering: .relaxed)
                }
            }
        }
        let overlapped = order.overlapped.load(ordering: .relaxed)
        #expect(!overlapped)
        #expect(order.taken.withLock { $0.count } == 16_000)
        #expect(lock.waiting == 0)
    }
}
