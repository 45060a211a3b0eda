import Locks

/// A mutual-exclusion lock taken in arrival order: a release hands it straight to the longest waiter, and nobody
/// arriving meanwhile can take it first.
///
/// For the single writer connection. A pthread mutex lets a thread that arrives just as the writer is released take
/// it before the threads already waiting, and under steady write load some of those waited ten times the mean (a
/// PATCH p99 of 43–100 ms at about 5,000 writes/s with 64 clients). Each waiter sleeps on a `Lock` of its own, so a
/// release wakes exactly the next one.
final class FairLock: @unchecked Sendable {
    // @unchecked Sendable: `held`, `waiters` and `head` are only touched inside `state.withLock`; a waiter's
    // `granted` only inside its own `gate.withLock`.
    private let state = ConditionLock()
    private var held = false
    private var waiters: [Waiter] = []
    private var head = 0

    /// A thread waiting for the lock, woken only when the lock is handed to it.
    private final class Waiter {
        let gate = ConditionLock()
        var granted = false
    }

    /// Runs `body` holding the lock, after every thread that was waiting for it before this one.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Threads waiting for the lock now (for tests).
    var waiting: Int {
        state.withLock { waiters.count - head }
    }

    private func lock() {
        let waiter: Waiter? = state.withLock {
            guard held else {
                held = true
                return nil
            }
            let waiter = Waiter()
            waiters.append(waiter)
            return waiter
        }
        guard let waiter else { return }
        waiter.gate.withLock {
            while !waiter.granted { waiter.gate.wait() }
        }
    }

    private func unlock() {
        let next: Waiter? = state.withLock {
            guard head < waiters.count else {
                held = false
                return nil
            }
            // Handed over: `held` stays true, so no thread arriving now can take it first.
            let next = waiters[head]
            head += 1
            if head == waiters.count {
                waiters.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= waiters.count {
                // Under steady contention the queue may never drain: drop the served front now and then.
                waiters.removeFirst(head)
                head = 0
            }
            return next
        }
        guard let next else { return }
        next.gate.withLock {
            next.granted = true
            next.gate.signal()
        }
    }
}
