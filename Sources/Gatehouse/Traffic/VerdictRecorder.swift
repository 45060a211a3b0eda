import Locks
import Foundation
import Synchronization

/// Records the server's own judgements into traffic (the rollups ingest feeds), batched: verdicts wait in memory
/// and are written per environment at most `interval` later, by a background job (``PeriodicJob``, woken early past
/// `highWater` waiting verdicts), or at once by `flush()` (which
/// the server calls on its graceful shutdown, SIGTERM). Statistics may lag by that interval; the state a verdict
/// depends on never does (it is committed before the answer, elsewhere).
public final class VerdictRecorder: Sendable {
    private let verdicts: Verdicts
    /// The longest a recorded verdict waits before it is written.
    public let interval: Duration
    /// Past this many waiting verdicts the background job is woken early.
    public let highWater: Int
    /// Queued verdicts, spread over several locks so that concurrent requests seldom wait for one another to queue.
    private let shards: [Shard]
    private let nextShard = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let flushing = Mutex(())
    /// Flushes every `interval`, or when woken past `highWater`.
    private let job = PeriodicJob(name: "gh-verdicts")
    private let onError: @Sendable (any Error) -> Void
    /// Verdicts written since start, by environment, provider and status (`/metrics`).
    private let written = Mutex<[TotalKey: Int]>([:])

    /// The key of ``totals()``.
    public struct TotalKey: Hashable, Sendable {
        public var environmentID: String
        public var provider: String
        public var status: String
    }

    /// A recorder writing through `verdicts` every `interval`; `onError` hears of a batch that could not be written
    /// (it is dropped: statistics, not state).
    public init(verdicts: Verdicts, interval: Duration = .seconds(1), highWater: Int = 5_000,
                onError: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.verdicts = verdicts
        self.interval = interval
        self.highWater = max(1, highWater)
        self.onError = onError
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// How many locks queued verdicts are spread over (a power of two).
    static let shardCount = 16

    /// One lock's queue of verdicts with their environment ids.
    private final class Shard: Sendable {
        let queued = Mutex<[(environmentID: String, verdict: TrafficVerdict)]>([])
    }

    /// Queues one verdict of `environmentID`.
    public func record(_ verdict: TrafficVerdict, environmentID: String) {
        let shard = shards[nextShard.wrappingAdd(1, ordering: .relaxed).oldValue & (Self.shardCount - 1)]
        shard.queued.withLock { $0.append((environmentID, verdict)) }
        if waiting.add(1, ordering: .relaxed).newValue == highWater { job.wake() }
    }

    /// Verdicts queued and not yet written.
    public var backlog: Int { waiting.load(ordering: .relaxed) }

    /// Writes every queued verdict now, one ingest per environment; returns how many were written.
    @discardableResult
    public func flush() -> Int {
        flushing.withLock { _ in
            var batches: [String: [TrafficVerdict]] = [:]
            for shard in shards {
                let queued = shard.queued.withLock { queued in
                    defer { queued.removeAll(keepingCapacity: true) }
                    return queued
                }
                for (environmentID, verdict) in queued { batches[environmentID, default: []].append(verdict) }
            }
            var written = 0
            for (environmentID, batch) in batches {
                waiting.subtract(batch.count, ordering: .relaxed)
                self.written.withLock { totals in
                    for verdict in batch {
                        totals[TotalKey(environmentID: environmentID, provider: verdict.provider, status: verdict.status), default: 0] += 1
                    }
                }
                do {
                    written += try verdicts.ingest(batch, environmentID: environmentID)
                } catch {
                    onError(error)
                }
            }
            return written
        }
    }

    /// Verdicts recorded since start (counted as they are flushed), by environment, provider and status.
    public func totals() -> [TotalKey: Int] {
        written.withLock { $0 }
    }

    /// Starts the background job that flushes every `interval` (once; later calls do nothing).
    public func start() {
        let seconds = interval.inSeconds
        job.start { [self] in
            flush()
            return seconds
        }
    }

    /// Stops the background job, then writes what is still queued (the graceful-shutdown path).
    public func stop() {
        job.stop()
        flush()
    }
}
