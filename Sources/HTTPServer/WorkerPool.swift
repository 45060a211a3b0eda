/// A fixed set of threads running `work` on items taken from a bounded FIFO queue.
///
/// Handlers may block (SQLite, argon2), so they run here and never on an I/O thread. `submit` refuses items when
/// the queue is full, which the server turns into 503s. Each worker owns a `Context` (the server keeps its
/// not-yet-posted responses there) and `idle` runs on it after every item, before the worker takes the next one or
/// sleeps: a response is never held back while another handler runs.
final class WorkerPool<Item: Sendable, Context>: @unchecked Sendable {
    // Safe to share: the ring, counters and flags are only touched under `lock`; each Context never leaves its thread.
    private let lock = ConditionLock()
    private var ring: [Item?]
    private var head = 0
    private var count = 0
    private var idle = 0
    private var alive = 0
    private var stopping = false
    private let threadCount: Int
    private let makeContext: @Sendable () -> Context
    private let work: @Sendable (Item, inout Context) -> Void
    private let onIdle: @Sendable (inout Context) -> Void

    /// A pool of `threads` workers with room for `queueLimit` waiting items.
    init(threads: Int, queueLimit: Int, makeContext: @escaping @Sendable () -> Context,
         work: @escaping @Sendable (Item, inout Context) -> Void, idle: @escaping @Sendable (inout Context) -> Void) {
        threadCount = max(1, threads)
        ring = Array(repeating: nil, count: max(1, queueLimit))
        self.makeContext = makeContext
        self.work = work
        self.onIdle = idle
    }

    /// Starts the worker threads; throws `ServerError.system` when a thread cannot be created.
    func start() throws {
        for index in 0..<threadCount {
            lock.withLock { alive += 1 }
            do {
                try ThreadStarter.start(name: "gh-worker-\(index)") { [self] in run() }
            } catch {
                lock.withLock { alive -= 1 }
                throw error
            }
        }
    }

    /// Queues items in order, as many as fit; returns how many were taken (a prefix of `items`).
    func submit(_ items: [Item]) -> Int {
        lock.lock()
        guard !stopping else {
            lock.unlock()
            return 0
        }
        let taken = min(items.count, ring.count - count)
        for item in items.prefix(taken) {
            ring[(head + count) % ring.count] = item
            count += 1
        }
        let wake = min(idle, taken)
        lock.unlock()
        // One signal per item that an idle worker can take: a broadcast would wake workers that find nothing.
        for _ in 0..<wake { lock.signal() }
        return taken
    }

    /// Queues one item; false when the queue is full or the pool is stopping.
    func submit(_ item: Item) -> Bool { submit([item]) == 1 }

    /// Lets the workers finish the queue and end.
    func stop() {
        lock.withLock { stopping = true }
        lock.broadcast()
    }

    /// Waits until every worker ended or the monotonic deadline passed; true when all ended.
    func waitStopped(untilNanoseconds deadline: UInt64) -> Bool {
        lock.withLock {
            while alive > 0 {
                if !lock.wait(untilNanoseconds: deadline) { return alive == 0 }
            }
            return true
        }
    }

    private func run() {
        var context = makeContext()
        var worked = false
        while true {
            if worked {
                // Hand over what this worker holds before it takes another item: the next handler may block (argon2,
                // a busy database) and must not hold back responses that are ready.
                onIdle(&context)
                worked = false
            }
            lock.lock()
            while count == 0 {
                if stopping {
                    alive -= 1
                    lock.unlock()
                    lock.broadcast()
                    return
                }
                idle += 1
                lock.wait()
                idle -= 1
            }
            let item = ring[head]
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
            lock.unlock()
            if let item { work(item, &context) }
            worked = true
        }
    }
}
