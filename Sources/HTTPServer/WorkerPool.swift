/// A fixed set of threads running `work` on items taken from a bounded FIFO queue.
///
/// Handlers may block (SQLite, argon2), so they run here and never on an I/O thread. `submit` refuses an item when
/// the queue is full, which the server turns into a 503.
final class WorkerPool<Item: Sendable>: @unchecked Sendable {  // ring, counters and flags only touched under `lock`
    private let lock = ConditionLock()
    private var ring: [Item?]
    private var head = 0
    private var count = 0
    private var idle = 0
    private var alive = 0
    private var stopping = false
    private let threadCount: Int
    private let work: @Sendable (Item) -> Void

    /// A pool of `threads` workers with room for `queueLimit` waiting items.
    init(threads: Int, queueLimit: Int, work: @escaping @Sendable (Item) -> Void) {
        threadCount = max(1, threads)
        ring = Array(repeating: nil, count: max(1, queueLimit))
        self.work = work
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

    /// Queues an item; false when the queue is full or the pool is stopping.
    func submit(_ item: Item) -> Bool {
        lock.lock()
        guard !stopping, count < ring.count else {
            lock.unlock()
            return false
        }
        ring[(head + count) % ring.count] = item
        count += 1
        let wake = idle > 0
        lock.unlock()
        if wake { lock.signal() }
        return true
    }

    /// The number of items waiting (not yet taken by a worker).
    var queued: Int { lock.withLock { count } }

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
        while let item = next() {
            work(item)
        }
    }

    private func next() -> Item? {
        lock.lock()
        defer { lock.unlock() }
        while count == 0 {
            if stopping {
                alive -= 1
                lock.broadcast()
                return nil
            }
            idle += 1
            lock.wait()
            idle -= 1
        }
        let item = ring[head]
        ring[head] = nil
        head = (head + 1) % ring.count
        count -= 1
        return item
    }
}
