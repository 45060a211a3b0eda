import Foundation
import Synchronization

/// A job run in the background while serving: on its own named thread, at once and then again after the wait each
/// run returns (or sooner when woken), until stopped. The one way the domain runs background work (``DomainJobs``,
/// the ``VerdictRecorder``).
public final class PeriodicJob: Sendable {
    /// The thread's name (as `ps -T` shows it).
    public let name: String
    /// Signalled to end a wait early: by ``wake()``, and by ``stop()``.
    private let signal = DispatchSemaphore(value: 0)
    /// Signalled by the thread as it ends.
    private let ended = DispatchSemaphore(value: 0)
    private let running = Mutex(false)
    private let stopping = Atomic<Bool>(false)

    public init(name: String) {
        self.name = name
    }

    /// Starts the thread that runs `job`, which returns how long to wait before its next run (the first call only;
    /// later ones do nothing).
    public func start(_ job: @escaping @Sendable () -> TimeInterval) {
        let first = running.withLock { r in
            defer { r = true }
            return !r
        }
        guard first else { return }
        let thread = Thread { [self] in
            // Set from the thread itself: only then does Foundation on Linux hand the name to the kernel, which is
            // what `ps -T` and `top` show.
            Thread.current.name = name
            while !stopping.load(ordering: .acquiring) {
                let wait = job()
                guard !stopping.load(ordering: .acquiring) else { break }
                _ = signal.wait(timeout: .now() + wait)
            }
            ended.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Runs the job as soon as the run in progress (if any) ends, instead of at its next time.
    public func wake() {
        signal.signal()
    }

    /// Ends the thread after the run in progress, and waits for it, if it was started (later calls do nothing).
    public func stop() {
        guard running.withLock({ $0 }), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signal.signal()
        ended.wait()
    }
}
