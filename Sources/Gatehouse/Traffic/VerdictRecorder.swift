import Synchronization

/// Records the server's own judgements into traffic (the rollups ingest feeds), batched: verdicts wait in a
/// ``ShardedBuffer`` and are written per environment by the domain's `gh-verdicts` job each second (woken early past
/// `highWater` waiting verdicts), and once more when the domain stops. Statistics may lag by that second; the state a
/// verdict depends on never does (it is committed before the answer, elsewhere).
public final class VerdictRecorder: Sendable {
    private let verdicts: Verdicts
    private let queue: ShardedBuffer<QueuedVerdicts>
    private let onError: @Sendable (any Error) -> Void
    /// Verdicts written since start, by environment, provider and status (`/metrics`).
    private let written = Mutex<[TotalKey: Int]>([:])

    /// The key of ``totals()``.
    public struct TotalKey: Hashable, Sendable {
        public var environmentID: String
        public var provider: String
        public var status: String
    }

    /// A recorder writing through `verdicts`; `onError` hears of a batch that could not be written (it is dropped:
    /// statistics, not state).
    init(_: Wiring, verdicts: Verdicts, highWater: Int, onError: @escaping @Sendable (any Error) -> Void) {
        self.verdicts = verdicts
        self.onError = onError
        queue = ShardedBuffer(highWater: highWater)
    }

    /// Queues one verdict of `environmentID`.
    public func record(_ verdict: TrafficVerdict, environmentID: String) {
        queue.add((environmentID, verdict))
    }

    /// Verdicts queued and not yet written.
    public var backlog: Int { queue.backlog }

    /// Writes every queued verdict now, one ingest per environment; returns how many were written.
    @discardableResult
    public func flush() -> Int {
        queue.drain { queued in
            var batches: [String: [TrafficVerdict]] = [:]
            for (environmentID, verdict) in queued.items { batches[environmentID, default: []].append(verdict) }
            var written = 0
            for (environmentID, batch) in batches {
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

    /// The job writing the queue each second (``DomainJobs``).
    var job: BackgroundJob {
        queue.job(name: "gh-verdicts", every: 1) { [self] in flush() }
    }
}

/// The verdicts waiting in a ``VerdictRecorder``, with their environments.
struct QueuedVerdicts: BufferedBatch {
    var items: [(environmentID: String, verdict: TrafficVerdict)] = []

    mutating func add(_ item: (environmentID: String, verdict: TrafficVerdict)) { items.append(item) }
    mutating func merge(_ other: QueuedVerdicts) { items += other.items }
    var itemCount: Int { items.count }
}
