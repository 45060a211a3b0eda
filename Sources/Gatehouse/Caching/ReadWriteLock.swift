import Glibc

/// A reader-writer lock (`pthread_rwlock_t`) for state read on every request and rarely written: readers do not
/// exclude each other. (`Synchronization.Mutex` is a priority-inheritance futex on Linux, and under many threads
/// its readers queued in the kernel behind one another.)
final class ReadWriteLock: @unchecked Sendable {  // the pthread object is only touched through pthread calls
    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    init() {
        lock = .allocate(capacity: 1)
        lock.initialize(to: pthread_rwlock_t())
        pthread_rwlock_init(lock, nil)
    }

    deinit {
        pthread_rwlock_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` holding the lock shared with other readers.
    func reading<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the lock alone.
    func writing<T>(_ body: () throws -> T) rethrows -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return try body()
    }
}
