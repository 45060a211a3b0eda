import Synchronization

/// What a ``ShardedBuffer`` gathers: a batch that items are added to and that merges with another.
protocol BufferedBatch: Sendable {
    associatedtype Item: Sendable
    init()
    mutating func add(_ item: Item)
    mutating func merge(_ other: Self)
    /// How many items were added to it (merged ones included).
    var itemCount: Int { get }
}

/// Items added from many threads at once and written together by a background job (the verdict recorder's verdicts,
/// the edge check's outcome counts): spread over several locks so that concurrent requests seldom wait for one
/// another, taken whole by ``drain(_:)`` one writer at a time, and past `highWater` waiting items the writing job is
/// woken (``job(name:every:flush:)``).
final class ShardedBuffer<Batch: BufferedBatch>: Sendable {
    /// Past this many waiting items the job is woken early.
    let highWater: Int
    private let wakeup = JobWakeup()
    private let shards: [Shard]
    private let nextShard = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let draining = Mutex(())

    /// How many locks items are spread over (a power of two).
    static var shardCount: Int { 16 }

    private final class Shard: Sendable {
        let batch = Mutex(Batch())
    }

    init(highWater: Int) {
        self.highWater = max(1, highWater)
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Adds one item.
    func add(_ item: Batch.Item) {
        let shard = shards[nextShard.wrappingAdd(1, ordering: .relaxed).oldValue & (Self.shardCount - 1)]
        shard.batch.withLock { $0.add(item) }
        if waiting.add(1, ordering: .relaxed).newValue == highWater { wakeup.wake() }
    }

    /// Items added and not yet drained.
    var backlog: Int { waiting.load(ordering: .relaxed) }

    /// Takes every waiting item, merged into one batch, and hands it to `write`; one drain at a time, so batches are
    /// written in the order they were taken.
    func drain<T>(_ write: (Batch) -> T) -> T {
        draining.withLock { _ in
            var merged = Batch()
            for shard in shards {
                merged.merge(shard.batch.withLock { batch in
                    defer { batch = Batch() }
                    return batch
                })
            }
            waiting.subtract(merged.itemCount, ordering: .relaxed)
            return write(merged)
        }
    }

    /// The background job writing this buffer through `flush` every `seconds`, at once past the high water, and once
    /// more when the domain stops.
    func job(name: String, every seconds: Double, flush: @escaping @Sendable () -> Void) -> BackgroundJob {
        BackgroundJob(name: name, run: { _ in
            flush()
            return seconds
        }, atStop: flush, wakeup: wakeup)
    }
}
