import Synchronization

/// One piece of the domain's background work, as a value: its name (its thread's, as `ps -T` shows it), what one run
/// does (answering the seconds until the next run), what it does once when the domain stops (a last flush), and what
/// may wake it before its time. Every job is listed once, in ``DomainJobs``.
struct BackgroundJob: Sendable {
    let name: String
    /// One run. `onItsThread` is true in a served process (a run may wait there for something to happen, as
    /// following other servers waits for a wake-up) and false when a test runs what is due on its own thread.
    let run: @Sendable (_ onItsThread: Bool) -> Double
    /// Done once when the domain stops, after the last run (whether the job ever ran on a thread or not).
    var atStop: (@Sendable () -> Void)?
    /// Wakes the job before its time (the verdict recorder past its high water).
    var wakeup: JobWakeup?
}

/// Asks a ``BackgroundJob`` to run before its time: its thread is signalled, and a test's ``DomainJobs/runDue()``
/// counts it as due.
final class JobWakeup: Sendable {
    private let pending = Atomic<Bool>(false)
    private let listener = Mutex<(@Sendable () -> Void)?>(nil)

    func wake() {
        pending.store(true, ordering: .releasing)
        listener.withLock { $0 }?()
    }

    /// Whether it was woken since the last call (which forgets it).
    func take() -> Bool {
        pending.exchange(false, ordering: .acquiringAndReleasing)
    }

    /// `signal` is called at each wake from now on (the job's thread).
    func listen(_ signal: @escaping @Sendable () -> Void) {
        listener.withLock { $0 = signal }
    }
}
