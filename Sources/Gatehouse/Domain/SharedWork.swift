import Dispatch
import Synchronization

/// Work that mostly waits on someone else (Apple's receipt refresh), shared between the thread that asks for it and
/// the domain's helper jobs (``jobs``, listed in ``DomainJobs``): the asker posts a batch and works it too, idle
/// helpers woken by the post take items as well, and the asker returns once every item is done. With no helper
/// running (a test on the test clock, a one-shot command) the asker does it all, one item after another. No thread
/// is made for it: the helpers are the domain's jobs.
final class SharedWork: Sendable {
    /// The helpers' names: `name-1`, `name-2`, …
    let name: String
    private let batches = Mutex<[Batch]>([])
    private let wakeups: [JobWakeup]

    /// One asker's items.
    private final class Batch: Sendable {
        let count: Int
        let body: @Sendable (Int) -> Void
        private let next = Mutex(0)
        let finished = DispatchGroup()

        init(count: Int, body: @escaping @Sendable (Int) -> Void) {
            self.count = count
            self.body = body
        }

        var hasWork: Bool { next.withLock { $0 < count } }

        /// Claims the next item and does it; false when none was left.
        func work() -> Bool {
            let index: Int? = next.withLock { n in
                guard n < count else { return nil }
                defer { n += 1 }
                finished.enter()
                return n
            }
            guard let index else { return false }
            body(index)
            finished.leave()
            return true
        }
    }

    /// Work shared with `helpers` jobs.
    init(name: String, helpers: Int) {
        self.name = name
        wakeups = (0..<max(0, helpers)).map { _ in JobWakeup() }
    }

    /// Does `body(0..<count)`, on this thread and on the helpers that are running; returns when every item is done.
    func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let batch = Batch(count: count, body: body)
        batches.withLock { $0.append(batch) }
        for wakeup in wakeups { wakeup.wake() }
        while batch.work() {}
        batch.finished.wait()
        batches.withLock { $0.removeAll { $0 === batch } }
    }

    /// The helper jobs: each, when woken, takes items of the posted batches until none is left.
    var jobs: [BackgroundJob] {
        wakeups.enumerated().map { index, wakeup in
            BackgroundJob(name: "\(name)-\(index + 1)", run: { [self] _ in
                while let batch = batches.withLock({ $0.first { $0.hasWork } }) {
                    _ = batch.work()
                }
                return 3600
            }, wakeup: wakeup)
        }
    }
}
