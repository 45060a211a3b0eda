import Glibc

/// Lets code that is about to sleep until another thread finishes something (a caller of a group commit waiting for
/// the batch that holds its change) tell the thread pool it runs on, so that the pool can wake another worker for the
/// CPU this thread leaves unused.
///
/// A pool installs a ``BlockingObserver`` on each of its threads; code anywhere below wraps its wait in
/// ``BlockingRegion/run(_:)``. On a thread without an observer (a test, the CLI) the region only runs its body. This
/// lives below both the HTTP server and the store, which know nothing of each other.
public enum BlockingRegion {
    /// Runs `body`, which sleeps until another thread wakes it, telling this thread's observer before and after.
    public static func run<T>(_ body: () throws -> T) rethrows -> T {
        guard let observer = current else { return try body() }
        observer.willBlock()
        defer { observer.didUnblock() }
        return try body()
    }

    /// Installs `observer` for the calling thread (nil removes it). The thread holds a strong reference to it until
    /// it is removed, so a pool must remove its observer before its thread ends.
    public static func install(_ observer: (any BlockingObserver)?) {
        if let previous = pthread_getspecific(key) {
            Unmanaged<ObserverBox>.fromOpaque(previous).release()
        }
        let next = observer.map { Unmanaged.passRetained(ObserverBox($0)).toOpaque() }
        pthread_setspecific(key, next)
    }

    /// The calling thread's observer.
    private static var current: (any BlockingObserver)? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<ObserverBox>.fromOpaque(pointer).takeUnretainedValue().observer
    }

    /// The thread-specific slot holding each thread's retained ``ObserverBox`` (made once, for the process).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// A class holding an existential, so that one retained pointer fits in the thread-specific slot.
    private final class ObserverBox {
        let observer: any BlockingObserver
        init(_ observer: any BlockingObserver) { self.observer = observer }
    }
}

/// What a thread pool does when one of its threads enters or leaves a ``BlockingRegion``.
public protocol BlockingObserver: AnyObject, Sendable {
    /// The calling thread is about to sleep until another thread wakes it.
    func willBlock()
    /// The calling thread woke and runs again.
    func didUnblock()
}
