import Synchronization

/// How many assessed requests of each environment and platform could have proven themselves in the last hour, and
/// how many of those came without a verified attestation: what the Overview shows as attack mode's effect ("in the
/// last hour 3 % of iOS requests came without proof and would be challenged").
///
/// Kept in memory per minute for the last 60 minutes (bounded: at most ``maxEnvironments`` environments); a restart
/// starts the hour again. Counted whether attack mode is on or not, so the effect is known before the switch.
///
/// Every assessment counts, so counting must not queue the server's workers on one lock: a count goes into one of
/// ``shardCount`` small tallies of the current minute, taken in turn, and those are folded into the hour's minutes
/// when their minute ends, when they hold ``pendingLimit`` keys, or when the hour is read.
public final class AssessTally: Sendable {
    /// The counts of one platform over the last hour.
    public struct Counts: Sendable, Equatable {
        /// Requests of a platform that could have proven itself.
        public var requests = 0
        /// Of those, the ones without a verified attestation.
        public var unproven = 0

        /// The share unproven, in percent (0 when there were no requests).
        public var unprovenPercent: Double { requests == 0 ? 0 : Double(unproven) * 100 / Double(requests) }
    }

    /// The most environments tallied; past it, every tally starts afresh.
    public static let maxEnvironments = 10_000
    private static let minutes: Int64 = 60

    private struct Minute {
        var minute: Int64
        var requests = 0
        var unproven = 0
    }

    /// A tally's minutes, one entry each.
    private struct Minutes {
        var minutes: [Minute] = []

        /// Adds `counted` (one minute's counts) to its minute's entry, dropping the minutes that left the hour
        /// before it. Shards fold in any order, so the entries are in no particular order.
        mutating func add(_ counted: Minute) {
            minutes.removeAll { $0.minute <= counted.minute - AssessTally.minutes }
            if let index = minutes.lastIndex(where: { $0.minute == counted.minute }) {
                minutes[index].requests += counted.requests
                minutes[index].unproven += counted.unproven
            } else {
                minutes.append(counted)
            }
        }
    }

    private struct Key: Hashable {
        var environmentID: String
        var platform: AssessRequest.Platform
    }

    private let buckets = Mutex<[Key: Minutes]>([:])
    /// Counts of the current minute not yet folded into `buckets`.
    private let shards: [Shard]
    private let nextShard = Atomic<Int>(0)
    static let shardCount = 16
    /// The most keys a shard holds before it folds them.
    static let pendingLimit = 64

    private final class Shard: Sendable {
        let pending = Mutex<[Key: Minute]>([:])
    }

    init(_: Wiring) {
        shards = (0..<Self.shardCount).map { _ in Shard() }
    }

    /// Counts one request of `platform` in `environmentID` at `now` (unix seconds).
    func count(environmentID: String, platform: AssessRequest.Platform, proven: Bool, at now: Int64) {
        let minute = now / 60
        let key = Key(environmentID: environmentID, platform: platform)
        let shard = shards[nextShard.wrappingAdd(1, ordering: .relaxed).oldValue & (Self.shardCount - 1)]
        let ended: [Key: Minute] = shard.pending.withLock { pending in
            var ended: [Key: Minute] = [:]
            let held = pending[key]
            let stale = held.map { $0.minute != minute } ?? false
            if stale || (held == nil && pending.count >= Self.pendingLimit) { swap(&ended, &pending) }
            // Once the shard was folded its held count went with it.
            var counted = (ended.isEmpty ? held : nil) ?? Minute(minute: minute)
            counted.requests += 1
            if !proven { counted.unproven += 1 }
            pending[key] = counted
            return ended
        }
        if !ended.isEmpty { fold(ended) }
    }

    /// The counts of `platform` in `environmentID` over the hour before `now`.
    public func lastHour(environmentID: String, platform: AssessRequest.Platform, now: Int64) -> Counts {
        for shard in shards {
            let pending = shard.pending.withLock { pending in
                var taken: [Key: Minute] = [:]
                swap(&taken, &pending)
                return taken
            }
            if !pending.isEmpty { fold(pending) }
        }
        let minute = now / 60
        return buckets.withLock { buckets in
            var counts = Counts()
            for bucket in buckets[Key(environmentID: environmentID, platform: platform)]?.minutes ?? [] where bucket.minute > minute - Self.minutes {
                counts.requests += bucket.requests
                counts.unproven += bucket.unproven
            }
            return counts
        }
    }

    /// Adds a shard's counts to the hour's minutes.
    private func fold(_ counted: [Key: Minute]) {
        buckets.withLock { buckets in
            for (key, minute) in counted {
                if buckets[key] == nil && buckets.count >= Self.maxEnvironments * AssessRequest.Platform.allCases.count {
                    buckets.removeAll(keepingCapacity: true)
                }
                buckets[key, default: Minutes()].add(minute)
            }
        }
    }
}
