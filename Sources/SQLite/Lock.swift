#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with a condition variable.
///
/// The reader pool needs to wait for a free connection, which `Synchronization.Mutex` cannot do (it has no
/// condition variable). The writer has a `FairLock`, which serves waiting writes in arrival order.
final class Lock: @unchecked Sendable {
    // @unchecked Sendable: the pthread objects are made for use from many threads; they are allocated once
    // (so they never move), initialized in init and destroyed in deinit, when no thread can hold them.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` holding the mutex.
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Waits for `signal`, releasing the mutex meanwhile; call only inside `withLock`, in a loop on the condition.
    func wait() {
        pthread_cond_wait(condition, mutex)
    }

    /// Wakes one waiter.
    func signal() {
        pthread_cond_signal(condition)
    }
}
