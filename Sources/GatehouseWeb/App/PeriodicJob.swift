import Foundation
import Synchronization

/// A job run in the background while serving: on its own named thread, at once and then every `interval` until
/// stopped. The upkeep (retention) and the device side's purge (challenges, nonces, spent tokens) are two.
final class PeriodicJob: Sendable {
    /// The thread's name (as `ps -T` shows it).
    let name: String
    let interval: TimeInterval
    private let stopped = DispatchSemaphore(value: 0)
    private let running = Mutex(false)

    init(name: String, interval: TimeInterval) {
        self.name = name
        self.interval = interval
    }

    /// Starts the thread that runs `job` (the first call only; later ones do nothing).
    func start(_ job: @escaping @Sendable () -> Void) {
        let first = running.withLock { r in
            defer { r = true }
            return !r
        }
        guard first else { return }
        let thread = Thread { [self] in
            // Set from the thread itself: only then does Foundation on Linux hand the name to the kernel, which is
            // what `ps -T` and `top` show.
            Thread.current.name = name
            repeat {
                job()
            } while stopped.wait(timeout: .now() + interval) == .timedOut
        }
        thread.name = name
        thread.start()
    }

    /// Ends the thread after the run in progress, if it was started.
    func stop() {
        if running.withLock({ $0 }) { stopped.signal() }
    }
}
