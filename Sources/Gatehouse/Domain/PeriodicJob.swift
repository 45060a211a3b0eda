import Foundation
import Synchronization

/// The thread a ``BackgroundJob`` runs on in a served process: a run at once, then again after the wait each run
/// answers (or sooner when woken), until stopped. Only ``DomainJobs`` makes one.
final class PeriodicJob: Sendable {
    let job: BackgroundJob
    /// Signalled to end a wait early: by the job's wakeup, and by ``stop()``.
    private let signal = DispatchSemaphore(value: 0)
    /// Signalled by the thread as it ends.
    private let ended = DispatchSemaphore(value: 0)
    private let running = Mutex(false)
    private let stopping = Atomic<Bool>(false)

    init(_ job: BackgroundJob) {
        self.job = job
        let signal = self.signal
        job.wakeup?.listen { signal.signal() }
    }

    /// Starts the thread (the first call only; later ones do nothing).
    func start() {
        let first = running.withLock { r in
            defer { r = true }
            return !r
        }
        guard first else { return }
        let thread = Thread { [self] in
            // Set from the thread itself: only then does Foundation on Linux hand the name to the kernel, which is
            // what `ps -T` and `top` show.
            Thread.current.name = job.name
            while !stopping.load(ordering: .acquiring) {
                _ = job.wakeup?.take()
                let wait = job.run(true)
                guard !stopping.load(ordering: .acquiring) else { break }
                _ = signal.wait(timeout: .now() + wait)
            }
            ended.signal()
        }
        thread.name = job.name
        thread.start()
    }

    /// Ends the thread after the run in progress, and waits for it, if it was started (later calls do nothing).
    func stop() {
        guard running.withLock({ $0 }), !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signal.signal()
        ended.wait()
    }
}
