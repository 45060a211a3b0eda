import Foundation
import Synchronization

/// A job run in the background while serving: on its own named thread, at once and then again after the wait each
/// run returns, until stopped: the domain's background work (``DomainJobs``).
public final class PeriodicJob: Sendable {
    /// The thread's name (as `ps -T` shows it).
    public let name: String
    private let stopped = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

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
            while stopped.wait(timeout: .now() + job()) == .timedOut {}
        }
        thread.name = name
        thread.start()
    }

    /// Ends the thread after the run in progress, if it was started.
    public func stop() {
        if running.withLock({ $0 }) { stopped.signal() }
    }
}
