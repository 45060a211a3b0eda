import Glibc
import Locks
import Synchronization

/// A fixed set of threads running `work` on items taken from a bounded FIFO queue.
///
/// Handlers may block (SQLite, argon2), so they run here and never on an I/O thread, and there are many workers so
/// that blocked handlers do not stall the rest. `submit` refuses items when the queue is full (the server's 503s).
///
/// Waking a sleeping thread costs more than most handlers: a futex call on each side and a context switch. Waking a
/// worker per request made those two thirds of the server's CPU under load. So `submit` wakes workers only until
/// `awakeTarget` of them are awake (a few per core: they take the queued items one after another without sleeping),
/// one worker out of work spins for `spinNanoseconds` before it sleeps, and a watchdog thread wakes one more worker
/// every `watchdogNanoseconds` while items wait and none was taken since the last look: workers blocked in long
/// handlers count as awake, and the watchdog is what keeps them from holding back the queue. A handler that sleeps
/// in a `BlockingRegion` (a group commit's waiter) says so, and the pool wakes another worker at once instead.
/// Each worker owns a `Context` (the server keeps its not-yet-posted responses there) and `idle` runs on it after every item, before
/// the worker takes the next one or sleeps: a response is never held back while another handler runs. `rest` runs
/// on it when the worker runs out of work, before it sleeps or ends (the server writes its access lines then).
final class WorkerPool<Item: Sendable, Context>: BlockingObserver, @unchecked Sendable {
    // Safe to share: the ring, counters and flags are only touched under `lock` (`queued` is an atomic copy of
    // `count`); each Context never leaves its thread.
    private let lock = ConditionLock()
    private var ring: [Item?]
    private var head = 0
    private var count = 0
    private var idle = 0
    private var alive = 0
    /// Workers sleeping in a `BlockingRegion` (waiting for another thread, not for the CPU): not counted as awake.
    private var blocked = 0
    private var stopping = false
    /// Workers spinning for work (0 or 1).
    private var spinners = 0
    /// Items taken since start, for the watchdog's "no progress" test.
    private var takenTotal = 0
    /// `count`, readable without the lock by the spinning worker; stored under `lock`.
    private let queued = Atomic<Int>(0)
    /// Awake workers (running a handler, spinning or about to look at the queue) `submit` aims for.
    private let awakeTarget: Int
    /// How long a worker out of work spins before it sleeps.
    static var spinNanoseconds: UInt64 { 50_000 }
    /// How often the watchdog looks for items that wait while every awake worker is busy.
    static var watchdogNanoseconds: UInt64 { 1_000_000 }
    private let threadCount: Int
    /// Whether the watchdog runs (tests turn it off to see the pool's other rules alone).
    private let watchdog: Bool
    private let makeContext: @Sendable () -> Context
    private let work: @Sendable (Item, inout Context) -> Void
    private let onIdle: @Sendable (inout Context) -> Void
    private let onRest: @Sendable (inout Context) -> Void

    /// A pool of `threads` workers with room for `queueLimit` waiting items, keeping `awakeTarget` of them awake
    /// while items wait (default: two per core).
    init(threads: Int, queueLimit: Int, awakeTarget: Int? = nil, watchdog: Bool = true,
         makeContext: @escaping @Sendable () -> Context,
         work: @escaping @Sendable (Item, inout Context) -> Void, idle: @escaping @Sendable (inout Context) -> Void,
         rest: @escaping @Sendable (inout Context) -> Void = { _ in }) {
        threadCount = max(1, threads)
        self.awakeTarget = max(1, awakeTarget ?? 2 * sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        self.watchdog = watchdog
        ring = Array(repeating: nil, count: max(1, queueLimit))
        self.makeContext = makeContext
        self.work = work
        self.onIdle = idle
        self.onRest = rest
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
        if watchdog {
            try ThreadStarter.start(name: "gh-watchdog") { [self] in watch() }
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
        queued.store(count, ordering: .releasing)
        // Awake workers (a spinning one among them) take queued items without being woken.
        let awake = alive - idle - blocked
        let wake = min(idle, max(0, min(count, awakeTarget) - awake))
        lock.unlock()
        // One signal per worker to wake: a broadcast would wake workers that find nothing.
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
        BlockingRegion.install(self)
        defer { BlockingRegion.install(nil) }
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
            var spun = false
            var rested = false
            while count == 0 {
                if stopping && rested {
                    alive -= 1
                    lock.unlock()
                    lock.broadcast()
                    return
                }
                if !rested && (stopping || spun || spinners > 0) {
                    // Out of work: `rest` runs before the worker sleeps or ends (outside the lock, which it may not
                    // need), then the queue is looked at again.
                    rested = true
                    lock.unlock()
                    onRest(&context)
                    lock.lock()
                    continue
                }
                if !spun && spinners == 0 {
                    spinners += 1
                    lock.unlock()
                    spin()
                    lock.lock()
                    spinners -= 1
                    spun = true
                    continue
                }
                idle += 1
                lock.wait()
                idle -= 1
            }
            let item = ring[head]
            ring[head] = nil
            head = (head + 1) % ring.count
            count -= 1
            takenTotal &+= 1
            queued.store(count, ordering: .releasing)
            lock.unlock()
            if let item { work(item, &context) }
            worked = true
        }
    }

    /// A worker is about to sleep until another thread wakes it (a group commit's waiter): if items wait and fewer
    /// workers than `awakeTarget` remain awake, one more is woken to take its place on the CPU.
    func willBlock() {
        lock.lock()
        blocked += 1
        let wake = count > 0 && idle > 0 && alive - idle - blocked < min(count, awakeTarget)
        lock.unlock()
        if wake { lock.signal() }
    }

    /// The worker woke from its blocking region and counts as awake again.
    func didUnblock() {
        lock.withLock { blocked -= 1 }
    }

    /// The watchdog: wakes one more worker when items wait and none was taken since its last look (every awake
    /// worker is in a long handler). Ends when the pool stops.
    private func watch() {
        var lastTaken = -1
        while true {
            var pause = timespec(tv_sec: 0, tv_nsec: Int(Self.watchdogNanoseconds))
            nanosleep(&pause, nil)
            lock.lock()
            if stopping {
                lock.unlock()
                return
            }
            let stalled = count > 0 && takenTotal == lastTaken && idle > 0
            lastTaken = takenTotal
            lock.unlock()
            if stalled { lock.signal() }
        }
    }

    /// Looks for queued work until some arrives or `spinNanoseconds` passed, giving the CPU away between looks.
    private func spin() {
        let deadline = monotonicNanoseconds() &+ Self.spinNanoseconds
        while queued.load(ordering: .acquiring) == 0 {
            if monotonicNanoseconds() >= deadline { return }
            sched_yield()
        }
    }
}
