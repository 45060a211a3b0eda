import Glibc

/// A mutex with a condition variable, for threads that wait for a state to change: the HTTP server's worker queue
/// and `Server.wait()`, the SQLite reader pool and its fair writer lock. Where a plain mutex suffices, use
/// `Synchronization.Mutex` instead.
///
/// `Synchronization.Mutex` has no condition variable; this wraps `pthread_mutex_t` and `pthread_cond_t` (heap
/// allocated so their addresses never move).
public final class ConditionLock: @unchecked Sendable {  // every access to the pthread objects goes through pthread calls
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    /// A new, unlocked lock.
    public init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Takes the mutex.
    public func lock() { pthread_mutex_lock(mutex) }
    /// Releases the mutex.
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Waits for a signal; the lock must be held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits for a signal until a `CLOCK_MONOTONIC` deadline in nanoseconds; the lock must be held.
    /// Returns false when the deadline passed.
    public func wait(untilNanoseconds deadline: UInt64) -> Bool {
        var spec = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        return pthread_cond_timedwait(condition, mutex, &spec) != ETIMEDOUT
    }

    /// Wakes one waiter.
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every waiter.
    public func broadcast() { pthread_cond_broadcast(condition) }
}

/// Monotonic time in nanoseconds (`CLOCK_MONOTONIC`), the clock of `ConditionLock.wait(untilNanoseconds:)`.
public func monotonicNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
}
